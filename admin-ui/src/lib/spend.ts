// Spend as the console shows it: a tenant's budgets as bars, its ledger days as a chart, and the
// usage export's parameters. Pure: the numbers come from GET /admin/api/tenants/{id}/spend.
import type { components } from './api-types';

export type TenantSpend = components['schemas']['TenantSpend'];
export type SpendBudget = components['schemas']['SpendBudget'];
export type SpendDay = TenantSpend['series'][number];

/** A budget's colour: the ladder downgrades above 80 %, and refuses what does not fit. */
export function budgetLevel(b: Pick<SpendBudget, 'usedUsd' | 'limitUsd'>): 'ok' | 'warm' | 'hot' {
  const share = b.limitUsd > 0 ? b.usedUsd / b.limitUsd : 0;
  return share >= 1 ? 'hot' : share > 0.8 ? 'warm' : 'ok';
}

/** "Daily spend budget", "Monthly spend budget". */
export function budgetName(period: string): string {
  return period === 'day' ? 'Daily spend budget' : period === 'month' ? 'Monthly spend budget' : `Spend budget (${period})`;
}

/** USD as an operator reads a budget: cents where they say enough, micro-dollars where they do not. */
export function usd(v: number): string {
  if (!Number.isFinite(v)) return '–';
  if (v === 0) return '$0.00';
  const abs = Math.abs(v);
  const digits = abs >= 1 ? 2 : abs >= 0.01 ? 4 : 6;
  return `$${v.toFixed(digits).replace(/(\.\d\d\d*?)0+$/, '$1')}`;
}

export interface Bar {
  date: string;
  x: number;
  y: number;
  width: number;
  height: number;
  usd: number;
}

/** The chart's columns: one per day, height proportional to its USD against the range's highest day. */
export function dayBars(series: SpendDay[], width: number, height: number): { bars: Bar[]; max: number } {
  const max = Math.max(0, ...series.map((d) => d.usd));
  const step = series.length > 0 ? width / series.length : width;
  const bars = series.map((d, i) => {
    const h = max > 0 ? (d.usd / max) * height : 0;
    // A day with any spend gets a visible sliver, so a cheap day is not mistaken for an idle one.
    const shown = d.usd > 0 ? Math.max(1, h) : 0;
    return { date: d.date, x: i * step + step * 0.1, y: height - shown, width: step * 0.8, height: shown, usd: d.usd };
  });
  return { bars, max };
}

/** A sentence for screen readers and the tooltip. */
export function describeSpend(series: SpendDay[]): string {
  const spent = series.filter((d) => d.usd > 0);
  if (spent.length === 0) return `no spend in the last ${series.length} days`;
  const total = series.reduce((s, d) => s + d.usd, 0);
  const peak = spent.reduce((a, b) => (b.usd > a.usd ? b : a));
  return `${usd(total)} over ${series.length} days, spend on ${spent.length} of them; highest ${usd(peak.usd)} on ${peak.date}`;
}

/** The current UTC month, as the month picker and the export write it. */
export function utcMonth(now: number = Date.now()): string {
  return new Date(now).toISOString().slice(0, 7);
}

/**
 * The export's path, or the reason it cannot be asked (checked as the gateway checks it, so the
 * operator hears it before the download).
 */
export function exportPath(range: { month: string } | { from: string; to: string }): { path: string } | { problem: string } {
  if ('month' in range) {
    if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(range.month)) return { problem: 'Pick a month.' };
    return { path: `/usage/export?month=${range.month}` };
  }
  const day = /^\d{4}-\d{2}-\d{2}$/;
  if (!day.test(range.from) || !day.test(range.to)) return { problem: 'Pick both days.' };
  const from = Date.parse(`${range.from}T00:00:00Z`);
  const to = Date.parse(`${range.to}T00:00:00Z`);
  if (Number.isNaN(from) || Number.isNaN(to)) return { problem: 'Pick both days.' };
  if (to < from) return { problem: 'The last day is before the first.' };
  const days = Math.round((to - from) / 86_400_000) + 1;
  if (days > 400) return { problem: `That is ${days} days; the export takes at most 400.` };
  return { path: `/usage/export?from=${range.from}&to=${range.to}` };
}

/** The file name the gateway gave (Content-Disposition), or a fallback. */
export function attachmentName(disposition: string | null, fallback: string): string {
  const m = disposition ? /filename="([^"]+)"/.exec(disposition) : null;
  return m ? m[1] : fallback;
}
