import { describe, expect, it } from 'vitest';
import { formatCount, formatMs, formatPercent, formatTime, formatUsd, relativeTime } from './format';

describe('format', () => {
  it('counts', () => {
    expect(formatCount(950)).toBe('950');
    expect(formatCount(9999)).toBe('9,999');
    expect(formatCount(12_345)).toBe('12.3k');
    expect(formatCount(300_000)).toBe('300k');
    expect(formatCount(2_500_000)).toBe('2.5M');
    expect(formatCount(null)).toBe('–');
  });
  it('money, shares and durations', () => {
    expect(formatUsd(0.9)).toBe('$0.90');
    expect(formatUsd(0.0024)).toBe('$0.0024');
    expect(formatPercent(0.973)).toBe('97%');
    expect(formatMs(420)).toBe('420 ms');
    expect(formatMs(2400)).toBe('2.4 s');
    expect(formatMs(90_000)).toBe('1 min 30 s');
    expect(formatMs(null)).toBe('–');
  });
  it('times', () => {
    const now = Date.parse('2026-11-30T10:00:00Z');
    expect(relativeTime('2026-11-30T09:57:00Z', now)).toBe('3 min ago');
    expect(relativeTime('2026-11-30T10:00:02Z', now)).toBe('just now');
    expect(relativeTime('2026-11-30T12:00:00Z', now)).toBe('in 2 h');
    expect(formatTime('2026-11-30T09:57:00.123Z')).toBe('2026-11-30 09:57:00 UTC');
    expect(relativeTime('nonsense', now)).toBe('nonsense');
  });
});
