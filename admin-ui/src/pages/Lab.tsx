import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { TimelineChart } from '../components/Charts';
import { ErrorNotice, Loading, Notice } from '../components/States';
import { ApiError } from '../lib/api';
import type { paths } from '../lib/api-types';
import { isMissingEndpoint } from '../lib/features';
import { formatCount, formatMs, formatTime, formatUsd } from '../lib/format';
import { CASES, caseRows, rampHeadline, runDuration, runProgress, type LabReport, type LabRun } from '../lib/lab';
import { useApiClient } from '../lib/useApi';

const POLL_MS = 1000;

type RunStarted = paths['/lab/runs']['post']['responses'][202]['content']['application/json'];

type State =
  | { kind: 'loading' }
  | { kind: 'missing' } // the lab run API is not in this gateway (404 on the route itself)
  | { kind: 'none' } // no run yet
  | { kind: 'run'; run: LabRun }
  | { kind: 'error'; error: ApiError };

export { isMissingEndpoint };

export function LabPage() {
  const api = useApiClient();
  const [state, setState] = useState<State>({ kind: 'loading' });
  const [cases, setCases] = useState<string[]>(CASES.map((c) => c.id));
  const [ramp, setRamp] = useState(true);
  const [startError, setStartError] = useState<ApiError | null>(null);

  const fetchRun = useCallback(
    async (id: string) => {
      try {
        const run = await api.get<LabRun>(`/lab/runs/${encodeURIComponent(id)}`);
        setState({ kind: 'run', run });
      } catch (e) {
        if (isMissingEndpoint(e)) setState({ kind: 'missing' });
        else if (e instanceof ApiError && e.status === 404 && id === 'latest') setState({ kind: 'none' });
        else setState({ kind: 'error', error: e as ApiError });
      }
    },
    [api],
  );

  useEffect(() => {
    void fetchRun('latest');
  }, [fetchRun]);

  const running = state.kind === 'run' && state.run.status === 'running' ? state.run.id : null;
  useEffect(() => {
    if (!running) return;
    const id = window.setInterval(() => void fetchRun(running), POLL_MS);
    return () => window.clearInterval(id);
  }, [running, fetchRun]);

  const start = async (e: FormEvent) => {
    e.preventDefault();
    setStartError(null);
    if (cases.length === 0) {
      setStartError(new ApiError(422, 'client', 'Pick at least one case to run.'));
      return;
    }
    try {
      const r = await api.send<RunStarted>('POST', '/lab/runs', { cases, ramp });
      await fetchRun(r.id);
    } catch (err) {
      if (isMissingEndpoint(err)) setState({ kind: 'missing' });
      else if (err instanceof ApiError && err.code === 'lab_busy') {
        setStartError(err);
        void fetchRun('latest');
      } else setStartError(err as ApiError);
    }
  };

  return (
    <section aria-labelledby="lab-title">
      <div className="page-head">
        <h1 id="lab-title">Lab</h1>
        <p className="muted">
          The seed&apos;s five cases and the ramp, run against a provider simulator of their own (seed 000&apos;s limits unless the gateway&apos;s{' '}
          <code>sluice.lab.scenario.options</code> change them; the report says which). Times are shown in the seed&apos;s units.
        </p>
      </div>
      {state.kind === 'missing' && (
        <Notice kind="info">
          <p>
            <strong>The lab run API is not in this gateway yet.</strong> <code>POST /admin/api/lab/runs</code> answered 404: this build has no scenario
            runner. Once it has, this page starts runs and charts them.
          </p>
        </Notice>
      )}
      {state.kind !== 'missing' && (
        <form className="panel" onSubmit={start}>
          <fieldset disabled={!!running} className="lab-cases">
            <legend>Cases to run</legend>
            {CASES.map((c) => (
              <label key={c.id} className="check">
                <input
                  type="checkbox"
                  checked={cases.includes(c.id)}
                  onChange={(e) => setCases(e.target.checked ? CASES.map((x) => x.id).filter((x) => x === c.id || cases.includes(x)) : cases.filter((x) => x !== c.id))}
                />{' '}
                {c.id}: {c.title}
              </label>
            ))}
            <label className="check">
              <input type="checkbox" checked={ramp} onChange={(e) => setRamp(e.target.checked)} /> The ramp: add users every 3 s until something fails
            </label>
          </fieldset>
          {startError && (startError.code === 'lab_busy' ? <BusyNotice running={!!running} /> : <ErrorNotice error={startError} />)}
          <button type="submit" className="primary" disabled={!!running}>
            {running ? 'Running…' : 'Start a run'}
          </button>
        </form>
      )}
      {state.kind === 'loading' && <Loading what="the latest lab run" />}
      {state.kind === 'error' && <ErrorNotice error={state.error} retry={() => void fetchRun('latest')} what="the lab run" />}
      {state.kind === 'none' && <p className="state empty">No run yet. Pick cases above and start one; a full run takes a few minutes.</p>}
      {state.kind === 'run' && <RunView run={state.run} />}
    </section>
  );
}

/** Our start was refused (409 lab_busy): someone else's run is going, and this page follows it now. */
export function BusyNotice({ running }: { running: boolean }) {
  return (
    <Notice kind="warn">
      <strong>Another lab run is going</strong> (the gateway answered 409, lab_busy): one runs at a time.{' '}
      {running ? 'Its progress is shown below; start yours once it has finished.' : 'It has finished: you can start yours now.'}
    </Notice>
  );
}

export function RunView({ run }: { run: LabRun }) {
  const p = run.progress;
  return (
    <div className="lab-run">
      <p role="status" aria-live="polite">
        <strong>Run {run.id}</strong>: {runProgress(run)} · started {formatTime(run.startedAt)}
        {run.finishedAt ? `, finished ${formatTime(run.finishedAt)} (${runDuration(run)})` : ''}
      </p>
      {run.status === 'running' && p && <progress max={p.total} value={p.done} aria-label="Lab run progress" />}
      {run.status === 'failed' && <Notice kind="error">The run failed: {run.error ?? 'no reason given'}.</Notice>}
      {run.report && <ReportView report={run.report} />}
    </div>
  );
}

export function ReportView({ report }: { report: LabReport }) {
  const rows = caseRows(report);
  return (
    <>
      <p className="muted small">
        Provider: {formatCount(report.limits.requestsPerMinute)} requests and {formatCount(report.limits.tokensPerMinute)} tokens a minute,{' '}
        {report.limits.maxInFlight} in flight, {formatUsd(report.limits.pricePerMillionTokens)} per million tokens, about{' '}
        {formatMs(report.limits.latencyMs)} a call. Run {report.scale.timeFactor}× faster than real time; every time below is in the seed&apos;s units.
      </p>
      <details className="small muted">
        <summary>How time was compressed</summary>
        {report.scale.note}
      </details>
      {rows.length === 0 ? (
        <p className="state empty">The report has no cases.</p>
      ) : (
        <table className="lab-table">
          <caption className="sr-only">Results per case</caption>
          <thead>
            <tr>
              <th scope="col">Case</th>
              <th scope="col" className="num">
                Users
              </th>
              <th scope="col">Books clean</th>
              <th scope="col" className="num">
                Pages sent
              </th>
              <th scope="col" className="num">
                <abbr title="Pages the provider refused: 429 on its requests or tokens per minute, 503 on its calls in flight">Died at provider</abbr>
              </th>
              <th scope="col" className="num">
                <abbr title="Pages refused before the provider: our limiter's 429 (case 3), the gateway's busy answer (case 4)">Refused by us</abbr>
              </th>
              <th scope="col" className="num">
                Bill
              </th>
              <th scope="col" className="num">
                Wasted
              </th>
              <th scope="col">Wait p50 / p95</th>
              <th scope="col">First failure</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.id}>
                <th scope="row">
                  {r.id}: {r.title}
                </th>
                <td className="num">{r.users}</td>
                <td className="nowrap">{r.books}</td>
                <td className="num">{formatCount(r.pagesSent)}</td>
                <td className="num">{formatCount(r.pagesDied)}</td>
                <td className="num">{formatCount(r.refusedByUs)}</td>
                <td className="num">{formatUsd(r.bill)}</td>
                <td className="num">{formatUsd(r.wasted)}</td>
                <td className="nowrap">{r.wait}</td>
                <td>{r.firstFailure}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="charts">
        {report.cases.map((c) => (
          <section key={c.id} aria-label={`${c.id} timeline`}>
            <h3>
              {c.id}: {c.title}
            </h3>
            <TimelineChart timeline={c.timeline} tokensPerMinute={c.tokensPerMinuteLimit} inFlightLimit={c.inFlightLimit} title={`${c.id} timeline`} />
          </section>
        ))}
      </div>
      {report.ramp.length > 0 && (
        <>
          <h2>Where it breaks: the ramp</h2>
          <div className="charts">
            {report.ramp.map((r) => (
              <section key={r.case} aria-label={`Ramp of ${r.case}`}>
                <h3>
                  {r.case} under the ramp: {rampHeadline(r)}
                </h3>
                <TimelineChart
                  timeline={r.timeline}
                  tokensPerMinute={r.tokensPerMinuteLimit}
                  inFlightLimit={r.inFlightLimit}
                  steps={r.steps}
                  title={`Ramp of ${r.case}`}
                />
              </section>
            ))}
          </div>
        </>
      )}
    </>
  );
}
