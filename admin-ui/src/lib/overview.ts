// The overview endpoint's shape (GET /admin/api/overview, from the API's contract) and the little logic on top.
import type { components } from './api-types';

type Schemas = components['schemas'];

export const STAGES = ['passed', 'delayed', 'downgraded', 'rejected', 'busy'] as const;
export type StageName = (typeof STAGES)[number];

export const STAGE_LABELS: Record<string, string> = {
  passed: 'Passed',
  delayed: 'Delayed',
  downgraded: 'Downgraded',
  rejected: '429 rate limited',
  busy: '503 busy',
  'too-large': 'Too large (400)',
  'store-unavailable': 'Store down (503)',
};

export type BudgetView = Schemas['Budget'];
export type Overview = Schemas['Overview'];
export type ProviderView = Schemas['Provider'];

/** Requests that finished the ladder in the window (a delayed request also counts its outcome). */
export function requestsIn(decisions: Record<string, number>): number {
  return ['passed', 'downgraded', 'rejected', 'too-large', 'store-unavailable'].reduce((s, k) => s + (decisions[k] ?? 0), 0);
}

/** A provider failing, or the provider looking like the bottleneck: its budget nearly spent or the queue waiting long. */
export function bottleneck(o: Overview): string | null {
  for (const p of o.providers ?? []) {
    if (p.state === 'failing') return `The provider ${p.name} is failing: it is skipped, and its models go to the next provider on their route.`;
  }
  for (const b of o.budgets) {
    const u = Math.max(b.utilisation.tokens, b.utilisation.requests);
    if (u >= 0.9) return `The provider budget ${b.budget} is ${Math.round(u * 100)}% used: the provider is the bottleneck.`;
    if (b.concurrencyLimit > 0 && b.inFlight >= b.concurrencyLimit) return `Calls in flight are at the concurrency limit on ${b.budget}.`;
    if ((b.queueWaitP95Ms.lastMinute ?? 0) >= 5000) return `Requests wait ${Math.round((b.queueWaitP95Ms.lastMinute ?? 0) / 1000)} s (p95) for ${b.budget}.`;
  }
  return null;
}

/** How the provider counts tokens, against Sluice's estimate, in words: what the budget is charged with. */
export function providerCount(ratio: number): string {
  const times = `× ${ratio.toFixed(2)}`;
  const pct = Math.round(Math.abs(ratio - 1) * 100);
  if (!Number.isFinite(ratio) || pct === 0) return `as Sluice estimates (${Number.isFinite(ratio) ? times : '× 1.00'})`;
  return `${pct}% ${ratio > 1 ? 'more' : 'less'} than Sluice estimates (${times})`;
}

/** Keeps the last `n` values of a series for the overview's small trend lines. */
export function pushBounded<T>(list: T[], value: T, n: number): T[] {
  const out = [...list, value];
  return out.length > n ? out.slice(out.length - n) : out;
}

/** A provider's state in words, and how it looks: paused says for how long (whole seconds, rounded up). */
export function providerState(p: Pick<ProviderView, 'state' | 'pausedForMs'>): { text: string; kind: 'good' | 'warn' | 'bad' } {
  switch (p.state) {
    case 'failing':
      return { text: 'failing: skipped', kind: 'bad' };
    case 'probing':
      return { text: 'probing', kind: 'warn' };
    case 'paused':
      return { text: `paused ${Math.max(1, Math.ceil(p.pausedForMs / 1000))} s`, kind: 'warn' };
    default:
      return { text: 'healthy', kind: 'good' };
  }
}

/** A budget's model as an operator reads it: the catch-all is "any other model". */
export function budgetModel(b: Pick<BudgetView, 'model' | 'budget'>): string {
  const model = b.model ?? b.budget.slice(b.budget.indexOf(':') + 1);
  return model === '*' ? 'any other model' : model;
}

/**
 * The door's word as the overview's tile shows it: actual wait ÷ the door's estimate, p50 / p95
 * (1.00 is exact; above it requests waited longer than they were told).
 */
export function waitEstimateKpi(o: Pick<Overview, 'waitEstimate'>): { value: string; note: string } {
  const w = o.waitEstimate;
  if (w == null || w.p50 == null) return { value: '–', note: 'no request has waited yet' };
  const ratio = (x: number | null) => (x == null ? '–' : `×${x.toFixed(2)}`);
  return { value: `${ratio(w.p50)} / ${ratio(w.p95)}`, note: `actual wait ÷ the door's estimate, ${w.samples} requests` };
}
