// The lab report (contract: the lab run API) and what the lab page draws from it.

export type FailureLimit = 'requests' | 'tokens' | 'in_flight' | 'limiter' | 'gateway_busy' | 'timeout';

export interface FirstFailure {
  second: number;
  users: number;
  limit: FailureLimit | string;
}

export interface TimelinePoint {
  second: number;
  admittedTokens: number;
  providerErrors: number;
  refusals: number;
}

export interface CaseResult {
  id: string;
  title: string;
  users: number;
  durationSeconds: number;
  pagesSent: number;
  pagesDied: number;
  booksTotal: number;
  booksClean: number;
  billUsd: number;
  wastedUsd: number;
  firstFailure: FirstFailure | null;
  waitP50Ms: number;
  waitP95Ms: number;
  busyAnswers: number;
  limiterRefusals: number;
  tokensPerSecondLimit: number;
  timeline: TimelinePoint[];
}

export interface RampResult {
  case: string;
  firstFailure: FirstFailure | null;
  steps: { second: number; users: number }[];
  tokensPerSecondLimit: number;
  timeline: TimelinePoint[];
}

export interface LabReport {
  generatedAt: string;
  limits: { requestsPerMinute: number; tokensPerMinute: number; maxInFlight: number; pricePerMillionTokens: number; latencyMs: number };
  scale: { timeFactor: number; note: string };
  cases: CaseResult[];
  ramp: RampResult[];
}

export interface LabRun {
  id: string;
  status: 'running' | 'done' | 'failed';
  startedAt: string;
  finishedAt: string | null;
  progress: { step: string; done: number; total: number } | null;
  error: string | null;
  report: LabReport | null;
}

export const CASES = [
  { id: 'case1', title: 'One user, one page after another' },
  { id: 'case2', title: 'All pages at once, nothing in front' },
  { id: 'case3', title: 'A rate limiter in front: the token bucket' },
  { id: 'case4', title: 'A work queue: say yes, later' },
  { id: 'case5', title: 'The queue nobody designed: the HTTP pool' },
] as const;

const LIMIT_WORDS: Record<string, string> = {
  requests: 'requests per minute',
  tokens: 'tokens per minute',
  in_flight: 'calls in flight',
  limiter: 'our own limiter (429)',
  gateway_busy: 'the door said busy (503)',
  timeout: 'timeouts',
};

export function describeFailure(f: FirstFailure | null): string {
  if (!f) return 'never failed';
  return `at ${f.second.toFixed(1)} s with ${f.users} ${f.users === 1 ? 'user' : 'users'}, on ${LIMIT_WORDS[f.limit] ?? f.limit}`;
}

export interface CaseRow {
  id: string;
  title: string;
  users: number;
  books: string;
  pagesDied: number;
  bill: number;
  wasted: number;
  wait: string;
  firstFailure: string;
}

export function caseRows(report: LabReport): CaseRow[] {
  return report.cases.map((c) => ({
    id: c.id,
    title: c.title,
    users: c.users,
    books: `${c.booksClean} of ${c.booksTotal}`,
    pagesDied: c.pagesDied,
    bill: c.billUsd,
    wasted: c.wastedUsd,
    wait: `${(c.waitP50Ms / 1000).toFixed(1)} s / ${(c.waitP95Ms / 1000).toFixed(1)} s`,
    firstFailure: describeFailure(c.firstFailure),
  }));
}

/** The y axis of a timeline: the limit line must be in view even when nothing was admitted. */
export function timelineMax(timeline: TimelinePoint[], limit: number): number {
  let max = limit;
  for (const p of timeline) max = Math.max(max, p.admittedTokens);
  return max * 1.1;
}

export function runProgress(run: LabRun | null): string {
  if (!run) return '';
  if (run.status === 'done') return 'Finished';
  if (run.status === 'failed') return `Failed: ${run.error ?? 'no reason given'}`;
  const p = run.progress;
  if (!p) return 'Starting…';
  return `Running ${p.step} (${p.done} of ${p.total} done)`;
}
