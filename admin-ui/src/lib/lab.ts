// The lab report (contract: the lab run API) and what the lab page draws from it.

import type { components } from './api-types';
import { formatMs } from './format';

type Schemas = components['schemas'];

export type FirstFailure = NonNullable<Schemas['LabFailure']>;
export type FailureLimit = FirstFailure['limit'];
export type TimelinePoint = Schemas['LabTimelinePoint'];
export type CaseResult = Schemas['LabCase'];
export type RampResult = Schemas['LabRamp'];
export type LabReport = Schemas['LabReport'];
/** progress.step: the case or ramp under way (`case2`, `case2-ramp`); null before the first and once over. */
export type LabRun = Schemas['LabRun'];

/** The gateway's own titles (CaseId), so the form and the report's table use the same words. */
export const CASES = [
  { id: 'case1', title: 'One page after another per user' },
  { id: 'case2', title: 'All pages at once, nothing in front' },
  { id: 'case3', title: 'A token-bucket limiter in front' },
  { id: 'case4', title: "The gateway's queue (Sluice)" },
  { id: 'case5', title: 'No queue but a bounded HTTP connection pool' },
] as const;

/** Each limit as "… on X": who refused the first page, and why. */
const LIMIT_WORDS: Record<string, string> = {
  requests: "the provider's requests per minute",
  tokens: "the provider's tokens per minute",
  in_flight: "the provider's calls in flight",
  limiter: 'our own limiter (429)',
  gateway_busy: "the gateway's busy answer (503)",
  timeout: "the pool's acquire timeout",
};

const usersWord = (n: number) => `${n} ${n === 1 ? 'user' : 'users'}`;

export function describeFailure(f: FirstFailure | null): string {
  if (!f) return 'never failed';
  return `at ${f.second.toFixed(1)} s with ${usersWord(f.users)}, on ${LIMIT_WORDS[f.limit] ?? f.limit}`;
}

/** A ramp's headline: where it broke, or how far it went without breaking. */
export function rampHeadline(r: RampResult): string {
  if (r.firstFailure) return describeFailure(r.firstFailure);
  const most = r.steps.length > 0 ? r.steps[r.steps.length - 1].users : 0;
  return most > 0 ? `never failed, up to ${usersWord(most)}` : 'never failed';
}

export interface CaseRow {
  id: string;
  title: string;
  users: number;
  books: string;
  pagesSent: number;
  pagesDied: number;
  /** Pages refused before the provider: the gateway's busy answers (case 4) and our limiter's 429s (case 3). */
  refusedByUs: number;
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
    pagesSent: c.pagesSent,
    pagesDied: c.pagesDied,
    refusedByUs: c.busyAnswers + c.limiterRefusals,
    bill: c.billUsd,
    wasted: c.wastedUsd,
    wait: `${(c.waitP50Ms / 1000).toFixed(1)} s / ${(c.waitP95Ms / 1000).toFixed(1)} s`,
    firstFailure: describeFailure(c.firstFailure),
  }));
}

/** How long a run took (or has been going, given now), from the API's times. */
export function runDuration(run: LabRun, now: number = Date.now()): string {
  const from = Date.parse(run.startedAt);
  const to = run.finishedAt ? Date.parse(run.finishedAt) : now;
  if (Number.isNaN(from) || Number.isNaN(to)) return '–';
  return formatMs(Math.max(0, to - from));
}

/** A progress step in words: the runner names a ramp `case2-ramp`. */
export function stepName(step: string): string {
  return step.endsWith('-ramp') ? `${step.slice(0, -'-ramp'.length)} under the ramp` : step;
}

export function runProgress(run: LabRun | null): string {
  if (!run) return '';
  if (run.status === 'done') return 'Finished';
  const p = run.progress;
  if (run.status === 'failed') return `Failed${p?.step ? ` during ${stepName(p.step)}` : ''}`;
  // The step is null until the first case starts: the runner warms its provider up first.
  if (!p || !p.step) return `Starting: warming up the lab's provider${p ? ` (0 of ${p.total} done)` : ''}`;
  return `Running ${stepName(p.step)} (${p.done} of ${p.total} done)`;
}
