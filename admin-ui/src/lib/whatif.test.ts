import { describe, expect, it } from 'vitest';
import { headline, promoteRefusal, refusalSeries, signedChange, stageRows, type WhatIf } from './whatif';

const counts = (passed: number, delayed: number, downgraded: number, rejected: number) => ({ passed, delayed, downgraded, rejected });

function whatIf(over: Partial<WhatIf> = {}): WhatIf {
  return {
    source: 'shadow',
    exact: true,
    exactness: 'Counted by the shadow.',
    draftVersion: 3,
    from: '2026-01-01T00:00:00Z',
    to: '2026-01-01T00:02:00Z',
    minutes: 60,
    tenantMinutes: 2,
    live: counts(10, 1, 0, 2),
    draft: counts(5, 1, 1, 6),
    tenants: [
      { tenant: 'acme', tier: 'free', live: counts(5, 0, 0, 1), draft: counts(2, 0, 0, 4) },
      { tenant: 'globex', tier: 'free', live: counts(5, 1, 0, 1), draft: counts(3, 1, 1, 2) },
    ],
    perMinute: [
      { minute: '2026-01-01T00:00:00Z', live: 2, draft: 5 },
      { minute: '2026-01-01T00:01:00Z', live: 0, draft: 1 },
    ],
    ...over,
  };
}

describe('the what-if', () => {
  it('writes a change with its sign, and none as words', () => {
    expect(signedChange(2, 6)).toBe('+4');
    expect(signedChange(6, 2)).toBe('−4');
    expect(signedChange(3, 3)).toBe('no change');
  });

  it('lists the stages in order, refusals named as operators read them', () => {
    expect(stageRows(whatIf()).map((r) => [r.label, r.live, r.draft, r.change])).toEqual([
      ['passed', 10, 5, '−5'],
      ['delayed', 1, 1, 'no change'],
      ['downgraded', 0, 1, '+1'],
      ['refused (429)', 2, 6, '+4'],
    ]);
  });

  it('says what the draft adds, from where, and to how many tenants', () => {
    expect(headline(whatIf())).toBe('The draft would have refused 4 more requests (in shadow), 2 tenants affected.');
    expect(headline(whatIf({ source: 'replay', draft: counts(10, 1, 0, 3), tenants: [] }))).toBe(
      'The draft would have refused 1 more request (by the replay estimate), 0 tenants affected.',
    );
    expect(headline(whatIf({ draft: counts(12, 1, 0, 0) }))).toBe('The draft would have refused 2 fewer requests (in shadow).');
    expect(headline(whatIf({ draft: counts(10, 1, 0, 2) }))).toBe('No change (in shadow): the draft decides this traffic as live does.');
    expect(headline(whatIf({ draft: counts(9, 1, 1, 2) }))).toBe('No change in refusals (in shadow); delays or downgrades differ.');
    expect(headline(whatIf({ tenantMinutes: 0 }))).toBe('No traffic in this period: nothing to compare yet.');
  });

  it('charts live and draft refusals per minute against one scale', () => {
    const s = refusalSeries(whatIf());
    expect(s.live).toEqual([{ t: Date.parse('2026-01-01T00:00:00Z'), v: 2 }, { t: Date.parse('2026-01-01T00:01:00Z'), v: 0 }]);
    expect(s.draft.map((p) => p.v)).toEqual([5, 1]);
    expect(s.max).toBe(5);
    expect(refusalSeries({ perMinute: [] }).max).toBe(1);
  });

  it('explains a refused promotion plainly', () => {
    expect(promoteRefusal(412, 'x')).toContain('The live tiers document changed since this page read it');
    expect(promoteRefusal(409, 'x')).toContain('no draft to promote');
    expect(promoteRefusal(422, 'The tiers document has 1 problem')).toBe('The tiers document has 1 problem');
  });
});
