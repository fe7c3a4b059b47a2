import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import fixture from '../fixtures/lab-run.json';
import { caseRows, describeFailure, runProgress, timelineMax, type LabRun } from '../lib/lab';
import { ApiError } from '../lib/api';
import { isMissingEndpoint, ReportView, RunView } from './Lab';

const run = fixture as unknown as LabRun;

describe('the lab report', () => {
  it('tabulates each case like the seed', () => {
    const rows = caseRows(run.report!);
    expect(rows.map((r) => r.id)).toEqual(['case1', 'case2', 'case4']);
    expect(rows[1]).toMatchObject({ books: '3 of 25', pagesDied: 2122, bill: 0.9, wasted: 0.81, wait: '2.1 s / 2.4 s' });
    expect(rows[1].firstFailure).toBe('at 0.7 s with 3 users, on calls in flight');
    expect(describeFailure(null)).toBe('never failed');
  });

  it('keeps the limit line in view', () => {
    expect(timelineMax([{ second: 0, admittedTokens: 10, providerErrors: 0, refusals: 0 }], 5000)).toBeCloseTo(5500);
  });

  it('says how far a run got', () => {
    expect(runProgress({ ...run, status: 'running', progress: { step: 'case3', done: 2, total: 6 } })).toBe('Running case3 (2 of 6 done)');
    expect(runProgress({ ...run, status: 'failed', error: 'lab provider down' })).toBe('Failed: lab provider down');
    expect(runProgress(run)).toBe('Finished');
  });

  it('renders the table, a chart per case with its limit line, and the ramp', () => {
    const html = renderToStaticMarkup(<ReportView report={run.report!} />);
    expect(html).toContain('case2: All pages at once, nothing in front');
    expect((html.match(/class="timeline"/g) ?? []).length).toBe(4); // three cases and one ramp
    expect((html.match(/class="limit"/g) ?? []).length).toBe(4);
    expect(html).toContain('4 seconds above the limit'); // case2 bursts to 80,000 tokens/s for 4 s
    expect(html).toContain('Where it breaks: the ramp');
    expect(html).toContain('at 7.0 s with 3 users, on tokens per minute');
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
