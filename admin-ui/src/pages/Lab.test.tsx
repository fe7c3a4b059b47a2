import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import fixture from '../fixtures/lab-run.json';
import { caseRows, describeFailure, rampHeadline, runDuration, runProgress, stepName, type LabRun } from '../lib/lab';
import { ApiError } from '../lib/api';
import { BusyNotice, isMissingEndpoint, ReportView, RunView } from './Lab';

const run = fixture as unknown as LabRun;

describe('the lab report', () => {
  it('tabulates each case like the seed', () => {
    const rows = caseRows(run.report!);
    expect(rows.map((r) => r.id)).toEqual(['case1', 'case2', 'case4']);
    expect(rows[1]).toMatchObject({ books: '3 of 25', pagesSent: 2400, pagesDied: 2122, refusedByUs: 0, bill: 0.9, wasted: 0.81, wait: '2.1 s / 2.4 s' });
    expect(rows[1].firstFailure).toBe("at 0.7 s with 3 users, on the provider's calls in flight");
    expect(describeFailure(null)).toBe('never failed');
    expect(describeFailure({ second: 13, users: 8, limit: 'gateway_busy' })).toBe("at 13.0 s with 8 users, on the gateway's busy answer (503)");
    // Refused before the provider: the door's busy answers (case 4) and the limiter's 429s (case 3) alike.
    const case4 = { ...run.report!.cases[2], busyAnswers: 12 };
    const case3 = { ...run.report!.cases[2], id: 'case3', limiterRefusals: 95 };
    expect(caseRows({ ...run.report!, cases: [case3, case4] }).map((r) => r.refusedByUs)).toEqual([95, 12]);
  });

  it('heads a ramp with where it broke, or how far it went', () => {
    const ramp = run.report!.ramp[0];
    expect(rampHeadline(ramp)).toBe("at 7.0 s with 3 users, on the provider's tokens per minute");
    const steps = [{ second: 0, users: 1 }, { second: 3, users: 2 }, { second: 6, users: 20 }];
    expect(rampHeadline({ ...ramp, firstFailure: null, steps })).toBe('never failed, up to 20 users');
    expect(rampHeadline({ ...ramp, firstFailure: null, steps: [] })).toBe('never failed');
  });

  it('says how long a run took, or has been going', () => {
    expect(runDuration({ ...run, startedAt: '2026-11-30T10:27:57Z', finishedAt: '2026-11-30T10:28:11Z' })).toBe('14 s');
    expect(runDuration({ ...run, startedAt: '2026-11-30T10:27:57Z', finishedAt: null }, Date.parse('2026-11-30T10:30:57Z'))).toBe('3 min');
    expect(runDuration({ ...run, startedAt: 'garbage', finishedAt: null })).toBe('–');
  });

  it('says how far a run got, in the words of the gateway\'s steps', () => {
    expect(runProgress({ ...run, status: 'running', progress: { step: 'case3', done: 2, total: 6 } })).toBe('Running case3 (2 of 6 done)');
    expect(runProgress({ ...run, status: 'running', progress: { step: 'case2-ramp', done: 3, total: 4 } })).toBe('Running case2 under the ramp (3 of 4 done)');
    // The gateway's step is null until the first case starts (it warms its provider up first), and once the run is over.
    expect(runProgress({ ...run, status: 'running', progress: { step: null, done: 0, total: 4 } })).toBe(
      "Starting: warming up the lab's provider (0 of 4 done)",
    );
    expect(runProgress({ ...run, status: 'failed', error: 'lab provider down', progress: { step: 'case4', done: 1, total: 4 } })).toBe('Failed during case4');
    expect(runProgress({ ...run, status: 'failed', error: 'lab provider down', progress: { step: null, done: 0, total: 4 } })).toBe('Failed');
    expect(runProgress(run)).toBe('Finished');
    expect(stepName('case4')).toBe('case4');
  });

  it('shows a failed run\'s error, and no report', () => {
    const failed = { ...run, status: 'failed', report: null, error: 'IllegalStateException: the lab run was interrupted', progress: { step: 'case4-ramp', done: 3, total: 4 } } as LabRun;
    const html = renderToStaticMarkup(<RunView run={failed} />);
    expect(html).toContain('Failed during case4 under the ramp');
    expect(html).toContain('role="alert"');
    expect(html).toContain('The run failed: IllegalStateException: the lab run was interrupted.');
    expect(html).not.toContain('class="timeline"');
  });

  it('explains a refused start (409 lab_busy) while the other run goes, and once it is over', () => {
    const going = renderToStaticMarkup(<BusyNotice running />);
    expect(going).toContain('Another lab run is going');
    expect(going).toContain('lab_busy');
    expect(going).toContain('Its progress is shown below');
    expect(renderToStaticMarkup(<BusyNotice running={false} />)).toContain('you can start yours now');
  });

  it('renders the table, two panels per case with their limit lines, and the ramp', () => {
    const html = renderToStaticMarkup(<ReportView report={run.report!} />);
    expect(html).toContain('case2: All pages at once, nothing in front');
    expect((html.match(/class="timeline"/g) ?? []).length).toBe(4); // three cases and one ramp
    expect((html.match(/class="limit"/g) ?? []).length).toBe(8); // tokens and calls in flight, each
    // case2 sends everything at once: the provider's window fills to its minute's limit, not 60 times over it.
    expect(html).toContain('case2 timeline, tokens: tokens in the provider&#x27;s trailing 60 s over 15 s against the TPM limit of 300k; at most 300k (100%); never above the limit');
    expect(html).toContain('case2 timeline, calls in flight: calls in flight at the provider over 15 s against the in flight limit of 200; at most 200 (100%)');
    expect(html).not.toContain('class="over"');
    expect(html).toContain('Where it breaks: the ramp');
    expect(html).toContain("at 7.0 s with 3 users, on the provider&#x27;s tokens per minute");
    expect(html).toContain('Pages sent');
    expect(html).toContain('How time was compressed');
  });

  it('renders a running run with its progress and no report yet', () => {
    const html = renderToStaticMarkup(<RunView run={{ ...run, status: 'running', finishedAt: null, report: null, progress: { step: 'case2', done: 1, total: 4 } }} />);
    expect(html).toContain('Running case2 (1 of 4 done)');
    expect(html).toContain('<progress');
    expect(html).not.toContain('class="timeline"');
  });

  it('tells a missing endpoint from a missing run', () => {
    expect(isMissingEndpoint(new ApiError(404, 'unknown_endpoint', 'No admin API endpoint'))).toBe(true);
    expect(isMissingEndpoint(new ApiError(404, 'not_found', 'No lab run yet'))).toBe(false);
  });
});
