import { areaPath, bucketMax, describeUsage, linePath, niceTicks, scale } from '../lib/charts';
import { formatCount } from '../lib/format';
import type { components } from '../lib/api-types';
import type { TimelinePoint } from '../lib/lab';

export interface UsagePoint {
  /** Minute start, epoch ms. */
  t: number;
  /** The minute's pressure on its ceiling (or, for older points, the tightest window's utilisation), 0..1+. */
  v: number;
}

/**
 * A tenant's utilisation over the period: columns of the highest minute in each, the
 * abuse threshold as a dashed line. Burst-and-idle shows gaps; flat-lined shows a wall.
 */
export function Sparkline({ points, fromMs, toMs, threshold, width = 180, height = 32, label }: {
  points: UsagePoint[];
  fromMs: number;
  toMs: number;
  threshold: number;
  width?: number;
  height?: number;
  label: string;
}) {
  const buckets = Math.max(12, Math.floor(width / 2.5));
  const values = bucketMax(points, fromMs, toMs, buckets);
  const description = describeUsage(values, threshold);
  const ty = scale(0, 1, height, 0)(threshold);
  const high = values.filter((v) => v >= threshold).length / values.length >= 0.8;
  return (
    <svg className={`sparkline${high ? ' high' : ''}`} width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`${label}: ${description}`}>
      <title>{`${label}: ${description}`}</title>
      <rect x="0" y="0" width={width} height={height} className="spark-bg" />
      <path d={areaPath(values, width, height, 1)} className="spark-area" />
      <line x1="0" x2={width} y1={ty} y2={ty} className="spark-threshold" />
    </svg>
  );
}

/** What one panel of a lab timeline plots: the provider's own count each second, and its limit. */
export interface LimitSeries {
  /** e.g. "tokens in the provider's trailing 60 s window" */
  what: string;
  /** The limit's name on its line, e.g. "TPM". */
  limitName: string;
  limit: number;
  values: number[];
}

/** The seconds whose value is above the limit (at the limit is not above it: the provider allows it). */
export function secondsOver(values: number[], limit: number): number[] {
  const out: number[] = [];
  values.forEach((v, i) => {
    if (v > limit) out.push(i);
  });
  return out;
}

/**
 * One panel of a lab timeline: the provider's count per second (at its most in the second) as a
 * line, its limit as a dashed line at the limit's value, a marker on every second above it;
 * provider errors and our refusals as ticks along the bottom, ramp steps as thin verticals.
 */
export function LimitPanel({ series, timeline, title, width = 520, height = 150, steps }: {
  series: LimitSeries;
  timeline: TimelinePoint[];
  title: string;
  width?: number;
  height?: number;
  steps?: { second: number; users: number }[];
}) {
  const { what, limitName, limit, values } = series;
  const pad = { l: 52, r: 12, t: 10, b: 26 };
  const w = width - pad.l - pad.r;
  const h = height - pad.t - pad.b;
  const lastSecond = Math.max(1, values.length);
  const yMax = Math.max(limit, ...values) * 1.1 || 1;
  const ticks = niceTicks(yMax, 4).filter((t) => t <= yMax);
  const sy = scale(0, yMax, h, 0);
  const sx = scale(0, lastSecond, 0, w);
  // A point per second at its end, from 0 at the start: the line rises where the count did.
  const line = linePath([{ x: 0, y: values[0] ?? 0 }, ...values.map((v, i) => ({ x: i + 1, y: v }))], [0, lastSecond], yMax, w, h);
  const over = secondsOver(values, limit);
  const peak = Math.max(0, ...values);
  const errors = timeline.filter((p) => p.providerErrors > 0);
  const refusals = timeline.filter((p) => p.refusals > 0);
  const percent = (v: number) => (limit > 0 ? `${Math.round((100 * v) / limit)}%` : '–');
  const seconds = (n: number) => `${n} second${n === 1 ? '' : 's'}`;
  const summary = `${title}: ${what} over ${lastSecond} s against the ${limitName} limit of ${formatCount(limit)}; at most ${formatCount(peak)} (${percent(peak)}); `
    + (over.length === 0 ? 'never above the limit' : `above the limit in ${seconds(over.length)}, first at ${over[0]} s`)
    + `; provider errors in ${seconds(errors.length)}, refusals in ${seconds(refusals.length)}.`;
  const barW = Math.max(1, w / lastSecond - 1);
  return (
    <svg width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={summary}>
      <title>{summary}</title>
      <g transform={`translate(${pad.l},${pad.t})`}>
        {ticks.map((t) => (
          <g key={t}>
            <line x1="0" x2={w} y1={sy(t)} y2={sy(t)} className="grid" />
            <text x="-6" y={sy(t)} dy="0.32em" textAnchor="end" className="axis">
              {formatCount(t)}
            </text>
          </g>
        ))}
        {(steps ?? []).map((s) => (
          <g key={`s${s.second}`}>
            <line x1={sx(s.second)} x2={sx(s.second)} y1="0" y2={h} className="step" />
            <text x={sx(s.second) + 2} y="9" className="axis small">
              {s.users}
            </text>
          </g>
        ))}
        <line x1="0" x2={w} y1={sy(limit)} y2={sy(limit)} className="limit" data-limit={limit} />
        <text x={w} y={sy(limit) - 4} textAnchor="end" className="axis limit-label">
          {limitName} {formatCount(limit)}
        </text>
        <path d={line} className="measure" />
        {over.map((i) => (
          <circle key={`o${i}`} cx={sx(i + 1)} cy={sy(values[i])} r="3" className="over">
            <title>{`second ${i}: ${formatCount(values[i])} ${what}, ${percent(values[i])} of the limit`}</title>
          </circle>
        ))}
        {errors.map((p) => (
          <rect key={`e${p.second}`} x={sx(p.second)} y={h - 6} width={barW} height="6" className="err-tick" />
        ))}
        {refusals.map((p) => (
          <rect key={`r${p.second}`} x={sx(p.second)} y={h - 12} width={barW} height="5" className="refusal-tick" />
        ))}
        <line x1="0" x2={w} y1={h} y2={h} className="axis-line" />
        <text x="0" y={h + 18} className="axis">
          0 s
        </text>
        <text x={w} y={h + 18} textAnchor="end" className="axis">
          {lastSecond} s
        </text>
      </g>
    </svg>
  );
}

/**
 * A lab run's case or ramp in the provider's own measure, two panels: the tokens its trailing 60 s
 * window held against its tokens per minute, and the calls it had in flight against its cap.
 */
export function TimelineChart({ timeline, tokensPerMinute, inFlightLimit, title, width = 520, steps }: {
  timeline: TimelinePoint[];
  tokensPerMinute: number;
  inFlightLimit: number;
  title: string;
  width?: number;
  steps?: { second: number; users: number }[];
}) {
  const tokens: LimitSeries = { what: "tokens in the provider's trailing 60 s", limitName: 'TPM', limit: tokensPerMinute, values: timeline.map((p) => p.tokensInWindow) };
  const calls: LimitSeries = { what: 'calls in flight at the provider', limitName: 'in flight', limit: inFlightLimit, values: timeline.map((p) => p.inFlight) };
  return (
    <figure className="timeline">
      <LimitPanel series={tokens} timeline={timeline} title={`${title}, tokens`} width={width} height={160} steps={steps} />
      <LimitPanel series={calls} timeline={timeline} title={`${title}, calls in flight`} width={width} height={120} steps={steps} />
      <figcaption>
        <span className="key measure-key">what the provider counted (each second at its most)</span>
        <span className="key limit-key">its limit ({formatCount(tokensPerMinute)} tokens a minute, {formatCount(inFlightLimit)} in flight)</span>
        <span className="key over-key">above the limit</span>
        <span className="key err-key">provider errors</span>
        <span className="key refusal-key">refusals</span>
        {steps && steps.length > 0 && <span className="key step-key">users added</span>}
      </figcaption>
    </figure>
  );
}

/** A small line of recent values (the overview's trends). */
export function Trend({ values, max, label, width = 120, height = 28 }: { values: number[]; max: number; label: string; width?: number; height?: number }) {
  const d = linePath(values.map((v, i) => ({ x: i, y: v })), [0, Math.max(1, values.length - 1)], max || 1, width, height);
  return (
    <svg className="trend" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={label}>
      <path d={d} />
    </svg>
  );
}

type WirePoint = components['schemas']['UsagePoint'];

/** What the minute's ceiling signal measured (null on points stored before it existed). */
export type CeilingMeasure = NonNullable<components['schemas']['Ceiling']>;

/**
 * A minute of a flag's evidence as the API sends it (UsagePoint). What the bar reads; pressure (what the
 * detector compares with the threshold) and ceiling may be missing from points stored before the signal.
 */
export type EvidencePoint = Pick<WirePoint, 'minute' | 'utilisation' | 'tokens' | 'window'> & Partial<Pick<WirePoint, 'pressure' | 'ceiling'>>;

/** The minute's bar: the ceiling signal when the point has one, else the snapshot (older points). */
export function evidenceValue(p: EvidencePoint): number {
  return p.pressure ?? p.utilisation;
}

/** Why the minute stood where it did, in words (the bar's tooltip). */
export function describeMinute(p: EvidencePoint): string {
  const at = new Date(Date.parse(p.minute)).toISOString().slice(11, 16);
  const c = p.ceiling;
  if (!c) return `${at} UTC: ${Math.round(p.utilisation * 100)}% of the ${p.window} window as the minute ended`;
  const fill = `${c.window} window ${Math.round(c.fill * 100)}% full on average, ${Math.round(c.peak * 100)}% at most`;
  const why = c.reason === 'refused' ? `refused ${c.refused} request${c.refused === 1 ? '' : 's'} (429)`
    : c.reason === 'held' ? `held ${c.held} request${c.held === 1 ? '' : 's'} (delayed)`
    : c.reason === 'room' ? `room left ${c.roomTokens} tokens, under a typical request of ${c.typicalTokens}`
    : 'by its fill';
  const also = c.reason === 'refused' && c.held > 0 ? `, held ${c.held}` : '';
  return `${at} UTC: ${fill}; ${why}${also}`;
}

/**
 * A flag's evidence: one bar per minute (the ceiling signal of its tightest window: a minute
 * refused, held or out of room stands at 100%), the abuse threshold as a line, the run that
 * raised the flag shaded. Each bar's tooltip says what the minute measured.
 */
export function EvidenceChart({ points, threshold, runStart, runMinutes, width = 560, height = 160, label }: {
  points: EvidencePoint[];
  threshold: number;
  runStart: string;
  runMinutes: number;
  width?: number;
  height?: number;
  label: string;
}) {
  const pad = { l: 40, r: 8, t: 8, b: 22 };
  const w = width - pad.l - pad.r;
  const h = height - pad.t - pad.b;
  if (points.length === 0) return <p className="muted">No evidence points were kept with this flag.</p>;
  const t0 = Date.parse(points[0].minute);
  const t1 = Date.parse(points[points.length - 1].minute) + 60_000;
  const minutes = Math.max(1, Math.round((t1 - t0) / 60_000));
  const sx = scale(t0, t1, 0, w);
  const yMax = Math.max(1, ...points.map(evidenceValue));
  const sy = scale(0, yMax, h, 0);
  const rs = Date.parse(runStart);
  const bw = Math.max(1, w / minutes - 1);
  const high = points.filter((p) => evidenceValue(p) >= threshold).length;
  const summary = `${label}: ${points.length} minutes shown, ${high} at or above ${Math.round(threshold * 100)}% of the ceiling; the run that raised the flag lasted ${runMinutes} minutes.`;
  return (
    <figure className="evidence">
      <svg width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={summary}>
        <title>{summary}</title>
        <g transform={`translate(${pad.l},${pad.t})`}>
          <rect x={sx(rs)} y="0" width={Math.max(0, Math.min(w, sx(rs + runMinutes * 60_000)) - sx(rs))} height={h} className="run" />
          {[0, 0.5, 1].map((v) => (
            <g key={v}>
              <line x1="0" x2={w} y1={sy(v)} y2={sy(v)} className="grid" />
              <text x="-6" y={sy(v)} dy="0.32em" textAnchor="end" className="axis">
                {Math.round(v * 100)}%
              </text>
            </g>
          ))}
          {points.map((p) => {
            const x = sx(Date.parse(p.minute));
            const v = Math.min(evidenceValue(p), yMax);
            return (
              <rect key={p.minute} x={x} y={sy(v)} width={bw} height={h - sy(v)} className={evidenceValue(p) >= threshold ? 'bar high' : 'bar'}>
                <title>{describeMinute(p)}</title>
              </rect>
            );
          })}
          <line x1="0" x2={w} y1={sy(threshold)} y2={sy(threshold)} className="limit" />
          <line x1="0" x2={w} y1={h} y2={h} className="axis-line" />
          <text x="0" y={h + 16} className="axis">
            {new Date(t0).toISOString().slice(11, 16)} UTC
          </text>
          <text x={w} y={h + 16} textAnchor="end" className="axis">
            {new Date(t1).toISOString().slice(11, 16)} UTC
          </text>
        </g>
      </svg>
      <figcaption>
        <span className="key admitted-key">pressure on the ceiling per minute (100% when refused, held or out of room)</span>
        <span className="key limit-key">threshold {Math.round(threshold * 100)}%</span>
        <span className="key run-key">the run at the ceiling</span>
      </figcaption>
    </figure>
  );
}
