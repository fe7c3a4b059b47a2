import { describe, expect, it } from 'vitest';
import { candidates, emptyForm, formOf, NO_REQUEST_CAP, organisationBody, windowLength, windowShare } from './organisations';

describe('the organisation form', () => {
  it('creates with only what was given: no windows and no spend are left out', () => {
    expect(organisationBody({ ...emptyForm(), id: 'acme' }, true)).toEqual({ body: { id: 'acme' } });
  });

  it('sends windows in seconds, requests only where capped, and a day budget with its zone', () => {
    const f = { ...emptyForm(), id: 'acme', name: 'Acme Inc', usdPerDay: '0.5', timeZone: 'Europe/Paris',
      windows: [{ name: 'minute', minutes: '1', tokens: '2000', requests: '' }, { name: 'hour', minutes: '60', tokens: '50000', requests: '100' }] };
    expect(organisationBody(f, true)).toEqual({
      body: {
        id: 'acme', name: 'Acme Inc',
        windows: [{ name: 'minute', seconds: 60, tokens: 2000 }, { name: 'hour', seconds: 3600, tokens: 50000, requests: 100 }],
        spend: { 'usd-per-day': 0.5, 'time-zone': 'Europe/Paris' },
      },
    });
  });

  it('when editing, always sends windows and spend, so emptied fields remove them', () => {
    expect(organisationBody({ ...emptyForm(), id: 'acme' }, false)).toEqual({ body: { windows: [], spend: {} } });
  });

  it('names each field a person can fix before sending', () => {
    const r = organisationBody({ ...emptyForm(), id: 'Bad Id', usdPerDay: '1.1234567', usdPerMonth: '-1',
      windows: [{ name: 'm', minutes: '0', tokens: 'x', requests: '-2' }, { name: 'm', minutes: '1.5', tokens: '1', requests: '' }] }, true);
    expect('problems' in r && r.problems.map((p) => p.field)).toEqual([
      'id', 'windows[0].seconds', 'windows[0].tokens', 'windows[0].requests', 'windows[1].name', 'windows[1].seconds', 'spend.usd-per-day', 'spend.usd-per-month',
    ]);
  });

  it('fills from an organisation: no request cap and the name equal to the id read as empty fields', () => {
    const f = formOf({ id: 'acme', name: 'acme', members: [], spend: { 'usd-per-day': 2, 'usd-per-month': null, 'time-zone': 'UTC' },
      windows: [{ name: 'minute', seconds: 120, tokens: 10, requests: NO_REQUEST_CAP }] });
    expect(f).toEqual({ id: 'acme', name: '', usdPerDay: '2', usdPerMonth: '', timeZone: 'UTC', windows: [{ name: 'minute', minutes: '2', tokens: '10', requests: '' }] });
    expect(organisationBody(f, false)).toEqual({ body: { windows: [{ name: 'minute', seconds: 120, tokens: 10 }], spend: { 'usd-per-day': 2, 'time-zone': 'UTC' } } });
  });
});

describe('shared windows', () => {
  const w = { name: 'minute', seconds: 60, limitTokens: 1000, limitRequests: 10, usedTokens: 500, usedRequests: 9, utilisation: 0.9, resetMs: 1000 };
  it('show the fuller of tokens and requests, coloured as the budgets', () => {
    expect(windowShare(w)).toEqual({ share: 0.9, level: 'warm' });
    expect(windowShare({ ...w, limitRequests: null })).toEqual({ share: 0.5, level: 'ok' });
    expect(windowShare({ ...w, usedTokens: 1000 }).level).toBe('hot');
    expect(windowShare({ ...w, limitTokens: 0, limitRequests: null }).share).toBe(0);
  });

  it('are named by their length', () => {
    expect(windowLength(60)).toBe('1 min');
    expect(windowLength(300)).toBe('5 min');
    expect(windowLength(7200)).toBe('2 h');
    expect(windowLength(86_400)).toBe('1 day');
    expect(windowLength(30 * 86_400)).toBe('30 days');
  });
});

describe('tenants to add', () => {
  it('are every tenant not already a member, saying where one would move from', () => {
    expect(candidates([{ id: 'a', organisation: 'acme' }, { id: 'b' }, { id: 'c', organisation: 'other' }], 'acme')).toEqual([{ id: 'b', from: undefined }, { id: 'c', from: 'other' }]);
    expect(candidates([], 'acme')).toEqual([]);
  });
});
