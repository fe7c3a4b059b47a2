import { useState, type FormEvent } from 'react';
import { ApiError } from '../lib/api';
import { formatCount, formatTime, relativeTime } from '../lib/format';
import { attachmentName, budgetLevel, budgetName, dayBars, describeSpend, exportPath, usd, utcMonth, type SpendBudget, type SpendDay, type TenantSpend } from '../lib/spend';
import { useApiClient, useLoad } from '../lib/useApi';
import { ErrorNotice, Loading } from './States';

/** One spend budget: used of cap as a bar, what is left, and when its period turns. */
export function BudgetBar({ budget }: { budget: SpendBudget }) {
  const name = budgetName(budget.period);
  const share = budget.limitUsd > 0 ? budget.usedUsd / budget.limitUsd : 0;
  const pct = Math.max(0, Math.min(1, share));
  return (
    <div className="meter budget">
      <div className="meter-label">
        <span>{name}</span>
        <span>
          {usd(budget.usedUsd)} of {usd(budget.limitUsd)} · {usd(budget.remainingUsd)} left
        </span>
      </div>
      <div className="meter-bar" role="meter" aria-label={`${name}: ${usd(budget.usedUsd)} of ${usd(budget.limitUsd)} used`}
        aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round(pct * 100)}>
        <div className={`meter-fill ${budgetLevel(budget)}`} style={{ width: `${pct * 100}%` }} />
      </div>
      <div className="muted small" title={formatTime(budget.resetsAt)}>
        Starts again {relativeTime(budget.resetsAt)} ({formatTime(budget.resetsAt)})
      </div>
    </div>
  );
}

/** Spend per UTC day as columns, the dearest day full height. */
export function DailySpendChart({ series, label, width = 560, height = 120 }: { series: SpendDay[]; label: string; width?: number; height?: number }) {
  const pad = { l: 74, b: 18, t: 6 };
  const w = width - pad.l;
  const h = height - pad.b - pad.t;
  const { bars, max } = dayBars(series, w, h);
  const description = `${label}: ${describeSpend(series)}`;
  return (
    <svg className="spend-chart" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={description}>
      <title>{description}</title>
      <text x={pad.l - 6} y={pad.t + 8} textAnchor="end" className="axis">
        {usd(max)}
      </text>
      <text x={pad.l - 6} y={pad.t + h} textAnchor="end" className="axis">
        $0
      </text>
      <line x1={pad.l} x2={width} y1={pad.t + h} y2={pad.t + h} className="baseline" />
      <g transform={`translate(${pad.l},${pad.t})`}>
        {bars.map((b) => (
          <rect key={b.date} x={b.x} y={b.y} width={b.width} height={b.height} className={b.usd > 0 ? 'bar spent' : 'bar'}>
            <title>{`${b.date}: ${usd(b.usd)}`}</title>
          </rect>
        ))}
      </g>
      {series.length > 0 && (
        <>
          <text x={pad.l} y={height - 4} className="axis">
            {series[0].date}
          </text>
          <text x={width} y={height - 4} textAnchor="end" className="axis">
            {series[series.length - 1].date}
          </text>
        </>
      )}
    </svg>
  );
}

/** A tenant's spend: a bar per budget and the last 30 days, from GET /tenants/{id}/spend. */
export function TenantSpendPanel({ tenant }: { tenant: string }) {
  const [spend, reload] = useLoad<TenantSpend>(`/tenants/${encodeURIComponent(tenant)}/spend?days=30`, 30_000);
  const s = spend.data;
  return (
    <div className="spend">
      <h2 className="h3">Spend of {tenant}</h2>
      {spend.state === 'loading' && !s && <Loading what="spend" />}
      {spend.state === 'error' && <ErrorNotice error={spend.error} retry={reload} what="the spend" />}
      {s && (
        <>
          {s.budgets.length === 0 ? (
            <p className="muted">No spend budget is capped for this tenant or its tier.</p>
          ) : (
            <div className="budgets">
              {s.budgets.map((b) => (
                <BudgetBar key={b.period} budget={b} />
              ))}
              <p className="muted small">Budgets turn at midnight in {s.timeZone}.</p>
            </div>
          )}
          <DailySpendChart series={s.series} label={`Daily spend of ${tenant}, last ${s.days} days (UTC)`} />
          <p className="muted small">
            Last {s.days} days: {usd(s.totals.usd)}, {formatCount(s.totals.requests)} requests, {formatCount(s.totals.inputTokens)} tokens in,{' '}
            {formatCount(s.totals.outputTokens)} out, at the serving provider&apos;s prices.
          </p>
        </>
      )}
    </div>
  );
}

/** Downloads the ledger as CSV for a month, or for a range of days. */
export function UsageExport() {
  const api = useApiClient();
  const [mode, setMode] = useState<'month' | 'days'>('month');
  const [month, setMonth] = useState(utcMonth());
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    const asked = exportPath(mode === 'month' ? { month } : { from, to });
    if ('problem' in asked) {
      setProblem(asked.problem);
      return;
    }
    setProblem(null);
    setBusy(true);
    try {
      const file = await api.download(asked.path);
      const url = URL.createObjectURL(file.blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = attachmentName(file.disposition, 'sluice-usage.csv');
      document.body.appendChild(a);
      a.click();
      a.remove();
      window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (err) {
      setError(err as ApiError);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="panel export" onSubmit={submit} noValidate aria-labelledby="export-title">
      <h2 id="export-title">Export usage (CSV)</h2>
      <p className="muted small">One row per tenant per UTC day: tokens in and out, requests, USD at the serving provider&apos;s prices.</p>
      {error && <ErrorNotice error={error} />}
      <div className="toolbar">
        <label>
          <input type="radio" name="export-mode" checked={mode === 'month'} onChange={() => setMode('month')} /> A month
        </label>
        <label>
          <input type="radio" name="export-mode" checked={mode === 'days'} onChange={() => setMode('days')} /> From / to
        </label>
        {mode === 'month' ? (
          <>
            <label htmlFor="export-month">Month</label>
            <input id="export-month" type="month" value={month} onChange={(e) => setMonth(e.target.value)} />
          </>
        ) : (
          <>
            <label htmlFor="export-from">From</label>
            <input id="export-from" type="date" value={from} onChange={(e) => setFrom(e.target.value)} />
            <label htmlFor="export-to">To</label>
            <input id="export-to" type="date" value={to} onChange={(e) => setTo(e.target.value)} />
          </>
        )}
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Preparing…' : 'Download CSV'}
        </button>
      </div>
      {problem && (
        <p className="field-error" role="alert">
          {problem}
        </p>
      )}
    </form>
  );
}
