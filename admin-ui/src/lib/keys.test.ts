import { describe, expect, it } from 'vitest';
import { capsBody, capsFormOf, capsSummary, isExpired, noCaps } from './keys';

const NOW = Date.parse('2026-12-06T12:00:00Z');

describe("a key's caps", () => {
  it('issue with only what was given', () => {
    expect(capsBody(noCaps, false, NOW)).toEqual({ body: {} });
    expect(capsBody({ tokensPerMinute: '2000', usdPerDay: '0.25', expiresAt: '2027-01-31T00:00' }, false, NOW)).toEqual({
      body: { tokensPerMinute: 2000, usdPerDay: 0.25, expiresAt: '2027-01-31T00:00:00Z' },
    });
  });

  it('when edited, an emptied field removes its cap (0) or the expiry (null)', () => {
    expect(capsBody(noCaps, true, NOW)).toEqual({ body: { tokensPerMinute: 0, usdPerDay: 0, expiresAt: null } });
  });

  it('refuse what the gateway would: fractions of tokens, 7 decimals, a past expiry', () => {
    expect(capsBody({ ...noCaps, tokensPerMinute: '1.5' }, false, NOW)).toHaveProperty('problem');
    expect(capsBody({ ...noCaps, tokensPerMinute: '-1' }, false, NOW)).toHaveProperty('problem');
    expect(capsBody({ ...noCaps, tokensPerMinute: '1000000000000001' }, false, NOW)).toHaveProperty('problem');
    expect(capsBody({ ...noCaps, usdPerDay: '0.1234567' }, false, NOW)).toHaveProperty('problem');
    expect(capsBody({ ...noCaps, expiresAt: '2026-12-06T12:00' }, false, NOW)).toEqual({ problem: 'Expiry: it must be in the future.' });
    expect(capsBody({ ...noCaps, expiresAt: 'soon' }, false, NOW)).toHaveProperty('problem');
  });

  it('fill the edit form from the key, the expiry in UTC to the minute', () => {
    expect(capsFormOf({ id: 'k', hint: null, createdAt: '', tokensPerMinute: 5, expiresAt: '2027-01-31T08:30:00Z' })).toEqual({
      tokensPerMinute: '5', usdPerDay: '', expiresAt: '2027-01-31T08:30',
    });
  });

  it('read in the list, and an expired key reads expired', () => {
    expect(capsSummary({ tokensPerMinute: 2000, usdPerDay: 0.25 })).toBe('2,000 tokens/min · $0.25/day');
    expect(capsSummary({})).toBeNull();
    expect(isExpired({ expiresAt: '2026-12-06T11:59:59Z' }, NOW)).toBe(true);
    expect(isExpired({ expiresAt: '2026-12-06T12:00:01Z' }, NOW)).toBe(false);
    expect(isExpired({}, NOW)).toBe(false);
  });
});
