import { describe, expect, it } from 'vitest';
import { attachmentName, budgetLevel, budgetName, dayBars, describeSpend, exportPath, usd, utcMonth } from './spend';

const day = (date: string, v: number) => ({ date, inputTokens: 0, outputTokens: 0, requests: v > 0 ? 1 : 0, usd: v });

describe('spend budgets', () => {
  it('are ok up to 80 %, warm above, hot when spent', () => {
    expect(budgetLevel({ usedUsd: 0.8, limitUsd: 1 })).toBe('ok');
    expect(budgetLevel({ usedUsd: 0.81, limitUsd: 1 })).toBe('warm');
    expect(budgetLevel({ usedUsd: 1, limitUsd: 1 })).toBe('hot');
    expect(budgetLevel({ usedUsd: 0, limitUsd: 0 })).toBe('ok');
  });

  it('are named by their period', () => {
    expect(budgetName('day')).toBe('Daily spend budget');
    expect(budgetName('month')).toBe('Monthly spend budget');
  });

  it('show cents, or micro-dollars where cents say nothing', () => {
    expect(usd(0)).toBe('$0.00');
    expect(usd(20)).toBe('$20.00');
    expect(usd(0.01)).toBe('$0.01');
    expect(usd(0.0105)).toBe('$0.0105');
    expect(usd(0.00075)).toBe('$0.00075');
    expect(usd(Number.NaN)).toBe('–');
  });
});

describe('the daily spend chart', () => {
  it('has a column per day, the dearest day full height, a cheap day still visible, an idle one empty', () => {
    const { bars, max } = dayBars([day('2026-12-05', 0), day('2026-12-06', 2), day('2026-12-07', 0.001)], 300, 100);
    expect(max).toBe(2);
    expect(bars.map((b) => b.height)).toEqual([0, 100, 1]);
    expect(bars[1].y).toBe(0);
    expect(bars[2].x).toBeCloseTo(210);
  });

  it('is described in words', () => {
    expect(describeSpend([day('2026-12-06', 0), day('2026-12-07', 0)])).toBe('no spend in the last 2 days');
    expect(describeSpend([day('2026-12-06', 0.5), day('2026-12-07', 1.5)])).toBe('$2.00 over 2 days, spend on 2 of them; highest $1.50 on 2026-12-07');
  });
});

describe('the export', () => {
  it('asks for a month or a range of days, as the gateway takes them', () => {
    expect(exportPath({ month: '2026-12' })).toEqual({ path: '/usage/export?month=2026-12' });
    expect(exportPath({ month: '2026-13' })).toEqual({ problem: 'Pick a month.' });
    expect(exportPath({ from: '2026-12-01', to: '2026-12-06' })).toEqual({ path: '/usage/export?from=2026-12-01&to=2026-12-06' });
    expect(exportPath({ from: '2026-12-07', to: '2026-12-06' })).toEqual({ problem: 'The last day is before the first.' });
    expect(exportPath({ from: '2026-01-01', to: '2027-02-05' })).toEqual({ problem: 'That is 401 days; the export takes at most 400.' });
    expect(exportPath({ from: '2026-01-01', to: '2027-02-04' })).toEqual({ path: '/usage/export?from=2026-01-01&to=2027-02-04' });
    expect(exportPath({ from: '', to: '2026-12-06' })).toEqual({ problem: 'Pick both days.' });
  });

  it('names the file as the gateway does', () => {
    expect(attachmentName('attachment; filename="sluice-usage-2026-12-01_2026-12-31.csv"', 'x.csv')).toBe('sluice-usage-2026-12-01_2026-12-31.csv');
    expect(attachmentName(null, 'x.csv')).toBe('x.csv');
  });

  it('defaults to the current UTC month', () => {
    expect(utcMonth(Date.parse('2026-12-31T23:59:59Z'))).toBe('2026-12');
    expect(utcMonth(Date.parse('2027-01-01T00:00:00Z'))).toBe('2027-01');
  });
});
