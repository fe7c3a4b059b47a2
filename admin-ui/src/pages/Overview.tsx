import { useEffect, useState } from 'react';
import { Trend } from '../components/Charts';
import { ErrorNotice, Loading, Notice } from '../components/States';
import { formatCount, formatMs, formatPercent, formatTime, formatUsd } from '../lib/format';
import {
  bottleneck,
  budgetModel,
  providerCount,
  providerState,
  pushBounded,
  requestsIn,
  STAGE_LABELS,
  STAGES,
  type BudgetView,
  type Overview,
  type ProviderView,
  waitEstimateKpi,
} from '../lib/overview';
import { useLoad } from '../lib/useApi';

const REFRESH_MS = 5000;
const TREND_POINTS = 60; // five minutes at one point every 5 s

interface Trends {
  requests: number[];
  utilisation: number[];
  inFlight: number[];
}

export function OverviewPage() {
  const [load, reload] = useLoad<Overview>('/overview', REFRESH_MS);
  const [trends, setTrends] = useState<Trends>({ requests: [], utilisation: [], inFlight: [] });

  useEffect(() => {
    if (load.state !== 'ok') return;
    const o = load.data;
    const u = Math.max(0, ...o.budgets.map((b) => Math.max(b.utilisation.tokens, b.utilisation.requests)));
    const f = o.budgets.reduce((s, b) => s + b.inFlight, 0);
    setTrends((t) => ({
      requests: pushBounded(t.requests, requestsIn(o.decisions.lastMinute), TREND_POINTS),
      utilisation: pushBounded(t.utilisation, u, TREND_POINTS),
      inFlight: pushBounded(t.inFlight, f, TREND_POINTS),
    }));
  }, [load]);

  const o = load.data;
  return (
    <section aria-labelledby="overview-title">
      <div className="page-head">
        <h1 id="overview-title">Overview</h1>
        <p className="muted" aria-live="off">
          This replica, refreshed every {REFRESH_MS / 1000} s{o ? ` · last at ${formatTime(o.at)}` : ''}
          {load.state === 'loading' && o ? ' · refreshing…' : ''}
        </p>
      </div>
      {load.state === 'error' && <ErrorNotice error={load.error} retry={reload} what="the overview" />}
      {!o && load.state === 'loading' && <Loading what="the overview" />}
      {o && <OverviewBody o={o} trends={trends} />}
    </section>
  );
}

function OverviewBody({ o, trends }: { o: Overview; trends: Trends }) {
  const warn = bottleneck(o);
  const total = requestsIn(o.decisions.lastMinute);
  const partial = o.coveredSeconds < o.windowSeconds - 1;
  const span = partial ? `last ${o.coveredSeconds} s` : 'last minute';
  const used = Math.max(0, ...o.budgets.map((b) => Math.max(b.utilisation.tokens, b.utilisation.requests)));
  const inFlight = o.budgets.reduce((s, b) => s + b.inFlight, 0);
  const limit = o.budgets.reduce((s, b) => s + b.concurrencyLimit, 0);
  return (
    <>
      {warn ? <Notice kind="warn">{warn}</Notice> : <Notice kind="ok">The provider has room: no budget near its limit and no long waits.</Notice>}
      <div className="kpis">
        <Kpi label={`Requests, ${span}`} value={formatCount(total)} note={`${formatCount(o.decisions.lastMinute.rejected ?? 0)} got 429, ${formatCount(o.decisions.lastMinute.busy ?? 0)} busy`}>
          <Trend values={trends.requests} max={Math.max(1, ...trends.requests)} label="Requests per minute, last five minutes" />
        </Kpi>
        <Kpi label="Time in queue, p95" value={formatMs(o.queueWaitP95Ms.lastMinute)} note={o.queueWaitP95Ms.lastMinute === null ? `nothing queued; since start ${formatMs(o.queueWaitP95Ms.sinceStart)}` : `since start ${formatMs(o.queueWaitP95Ms.sinceStart)}`} />
        <Kpi label="Wait as told, p50 / p95" {...waitEstimateKpi(o)} />
        <Kpi label="Provider budget used" value={o.budgets.length ? formatPercent(used, used < 0.1 ? 1 : 0) : '–'} note="of its minute, the fullest budget">
          <Trend values={trends.utilisation} max={1} label="Highest budget utilisation, last five minutes" />
        </Kpi>
        <Kpi label="Calls in flight" value={o.budgets.length ? `${formatCount(inFlight)} / ${formatCount(limit)}` : '–'} note="against the concurrency limit">
          <Trend values={trends.inFlight} max={Math.max(1, limit)} label="Calls in flight, last five minutes" />
        </Kpi>
        <Kpi label={`Spend, ${span}`} value={formatUsd(o.spend.usdLastMinute)} note={`${formatCount(o.spend.tokensLastMinute)} billed tokens; ${formatUsd(o.spend.usdSinceStart)} since start`} />
      </div>
      {/* A gateway older than the providers list (a rolling upgrade) sends none. */}
      <ProvidersTable providers={o.providers ?? []} span={span} />
      <div className="two-col">
        <article className="card" aria-labelledby="dec-title">
          <h2 id="dec-title">Decisions per stage</h2>
          <table className="stages">
            <thead>
              <tr>
                <th scope="col">Stage</th>
                <th scope="col" className="num">
                  {partial ? `Last ${o.coveredSeconds} s` : 'Last minute'}
                </th>
                <th scope="col" className="num">
                  Since start
                </th>
              </tr>
            </thead>
            <tbody>
              {[...STAGES, ...Object.keys(o.decisions.sinceStart).filter((k) => !(STAGES as readonly string[]).includes(k))].map((s) => (
                <tr key={s} className={`stage-${s}`}>
                  <th scope="row">
                    <span className={`dot ${s}`} aria-hidden="true" />
                    {STAGE_LABELS[s] ?? s}
                  </th>
                  <td className="num">{formatCount(o.decisions.lastMinute[s] ?? 0)}</td>
                  <td className="num">{formatCount(o.decisions.sinceStart[s] ?? 0)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <p className="muted small">
            A delayed request is also counted by its outcome; busy comes after passed or downgraded. Since start: {formatTime(o.startedAt)}. Upstream
            answers, {span}:{' '}
            {Object.keys(o.upstream.lastMinute).length === 0
              ? 'none'
              : Object.entries(o.upstream.lastMinute)
                  .map(([st, n]) => `${st}: ${formatCount(n)}`)
                  .join(', ')}
            {o.openFlags !== null ? `. Abuse flags waiting for review: ${o.openFlags}.` : '.'}
          </p>
        </article>
        <div>
          {o.budgets.length === 0 ? (
            <p className="state empty">
              No request has reached a provider on this replica yet: budgets appear with the first call. Send one with a demo key to see them.
            </p>
          ) : (
            o.budgets.map((b) => (
              <article className="card budget" key={b.budget} aria-label={`Budget ${b.budget}`}>
                <h2>
                  Provider budget <code>{b.budget}</code>
                </h2>
                <Meter label="Tokens this minute" share={b.utilisation.tokens} />
                <Meter label="Requests this minute" share={b.utilisation.requests} />
                <dl className="facts">
                  <dt>Calls in flight</dt>
                  <dd>
                    {formatCount(b.inFlight)} of {formatCount(b.concurrencyLimit)} allowed
                    {b.maxInFlight !== null && b.concurrencyLimit < b.maxInFlight ? ` (cut from ${b.maxInFlight}: the provider pushed back)` : ''}
                  </dd>
                  <dt>Queued now</dt>
                  <dd>{formatCount(b.queueDepth)}</dd>
                  <dt>Queue wait p95</dt>
                  <dd>{formatMs(b.queueWaitP95Ms.lastMinute)}</dd>
                  <dt>Provider counts prompts</dt>
                  <dd title="Learned from the provider's answers (usage), shared by the replicas: the provider budget is charged the prompt at this ratio plus max_tokens; tenant quotas are charged the estimate.">
                    {providerCount(b.tokenRatio)}
                  </dd>
                  <dt>Price</dt>
                  <dd>{b.pricePerMillionTokens === null ? '–' : `${formatUsd(b.pricePerMillionTokens)} per million tokens`}</dd>
                </dl>
              </article>
            ))
          )}
          <p className="muted small">{o.spend.priceSource}</p>
        </div>
      </div>
    </>
  );
}

/** One row per provider, in the tiers document's order: where it is, whether it takes calls, its share, its budgets' use. */
export function ProvidersTable({ providers, span }: { providers: ProviderView[]; span: string }) {
  if (providers.length === 0) return null;
  return (
    <article className="card providers" aria-labelledby="providers-title">
      <h2 id="providers-title">Providers</h2>
      <table className="providers">
        <thead>
          <tr>
            <th scope="col">Provider</th>
            <th scope="col">State</th>
            <th scope="col" className="num" title="Answers it served (not 429, 5xx or no answer) of all providers' answers, on this replica">
              Share of traffic, {span}
            </th>
            <th scope="col" className="num">
              Tokens this minute
            </th>
            <th scope="col" className="num">
              Requests this minute
            </th>
            <th scope="col" className="num">
              In flight
            </th>
          </tr>
        </thead>
        <tbody>
          {providers.map((p) => {
            const state = providerState(p);
            const answers = Object.values(p.answers.lastMinute).reduce((a, n) => a + n, 0);
            const failedOver = p.retries?.lastMinute.failover ?? 0;
            return (
              <tr key={p.name} aria-label={`Provider ${p.name}`}>
                <th scope="row">
                  {p.name}
                  <div className="muted small">{p.host}</div>
                </th>
                <td>
                  <span className={`badge ${state.kind}`}>{state.text}</span>
                </td>
                <td className="num">
                  {formatPercent(p.shareLastMinute)}
                  <div className="muted small">
                    {formatCount(answers)} answers{failedOver > 0 ? `, ${formatCount(failedOver)} failed over` : ''}
                  </div>
                </td>
                <PerBudget budgets={p.budgets} value={(b) => formatPercent(b.utilisation.tokens, b.utilisation.tokens > 0 && b.utilisation.tokens < 0.1 ? 1 : 0)} />
                <PerBudget budgets={p.budgets} value={(b) => formatPercent(b.utilisation.requests, b.utilisation.requests > 0 && b.utilisation.requests < 0.1 ? 1 : 0)} />
                <PerBudget budgets={p.budgets} value={(b) => `${formatCount(b.inFlight)} / ${formatCount(b.concurrencyLimit)}`} />
              </tr>
            );
          })}
        </tbody>
      </table>
    </article>
  );
}

/** A figure per budget; the model is named only where a provider has more than one budget. */
function PerBudget({ budgets, value }: { budgets: BudgetView[]; value: (b: BudgetView) => string }) {
  if (budgets.length === 0) return <td className="num muted">no call yet</td>;
  if (budgets.length === 1) return <td className="num">{value(budgets[0])}</td>;
  return (
    <td className="num">
      <ul>
        {budgets.map((b) => (
          <li key={b.budget}>
            <span className="muted">{budgetModel(b)}:</span> {value(b)}
          </li>
        ))}
      </ul>
    </td>
  );
}

function Kpi({ label, value, note, children }: { label: string; value: string; note: string; children?: React.ReactNode }) {
  return (
    <article className="kpi" aria-label={label}>
      <h2>{label}</h2>
      <p className="big">{value}</p>
      <p className="muted small">{note}</p>
      {children}
    </article>
  );
}

function Meter({ label, share }: { label: string; share: number }) {
  const pct = Math.max(0, Math.min(1, share));
  const level = share >= 0.9 ? 'hot' : share >= 0.7 ? 'warm' : 'ok';
  return (
    <div className="meter">
      <div className="meter-label">
        <span>{label}</span>
        <span>{formatPercent(share, share > 0 && share < 0.1 ? 1 : 0)}</span>
      </div>
      <div className="meter-bar" role="meter" aria-label={label} aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round(pct * 100)}>
        <div className={`meter-fill ${level}`} style={{ width: `${pct * 100}%` }} />
      </div>
    </div>
  );
}
