import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { BudgetBar, DailySpendChart } from './Spend';

describe('spend as rendered', () => {
  it('a budget bar says used of cap, what is left and when it turns, and is hot when spent', () => {
    const html = renderToStaticMarkup(
      <BudgetBar budget={{ period: 'day', limitUsd: 0.01, usedUsd: 0.01, remainingUsd: 0, utilisation: 1, resetsAt: '2026-12-07T00:00:00Z', resetMs: 1000 }} />,
    );
    expect(html).toContain('Daily spend budget');
    expect(html).toContain('$0.01 of $0.01 · $0.00 left');
    expect(html).toContain('aria-valuenow="100"');
    expect(html).toContain('meter-fill hot');
    expect(html).toContain('2026-12-07 00:00:00 UTC');
  });

  it('a budget bar past 80 % is warm, and never drawn past its end', () => {
    const html = renderToStaticMarkup(
      <BudgetBar budget={{ period: 'month', limitUsd: 20, usedUsd: 17, remainingUsd: 3, utilisation: 0.85, resetsAt: '2027-01-01T00:00:00Z', resetMs: 1000 }} />,
    );
    expect(html).toContain('Monthly spend budget');
    expect(html).toContain('meter-fill warm');
    expect(html).toContain('width:85%');
  });

  it('the daily chart draws a column for each day with spend and describes the period', () => {
    const series = Array.from({ length: 30 }, (_, i) => ({
      date: `2026-11-${String(i + 1).padStart(2, '0')}`,
      inputTokens: 10,
      outputTokens: 10,
      requests: i % 3 === 0 ? 1 : 0,
      usd: i % 3 === 0 ? 0.25 : 0,
    }));
    const html = renderToStaticMarkup(<DailySpendChart series={series} label="Daily spend of acme" />);
    expect((html.match(/class="bar spent"/g) ?? []).length).toBe(10);
    expect((html.match(/<rect/g) ?? []).length).toBe(30);
    expect(html).toContain('Daily spend of acme: $2.50 over 30 days, spend on 10 of them');
  });
});
