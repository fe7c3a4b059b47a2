import { linePath, niceTicks, scale } from '../lib/charts';
import { formatCount } from '../lib/format';
import { refusalSeries, type WhatIf } from '../lib/whatif';

/** Refusals per minute, live (solid) against the draft (dashed), on one scale. */
export function WhatIfChart({ whatIf, width = 560, height = 160 }: { whatIf: Pick<WhatIf, 'perMinute' | 'source'>; width?: number; height?: number }) {
  const { live, draft, max } = refusalSeries(whatIf);
  const pad = { l: 44, r: 12, t: 10, b: 22 };
  const w = width - pad.l - pad.r;
  const h = height - pad.t - pad.b;
  const yMax = max * 1.1;
  const ticks = niceTicks(yMax, 4).filter((t) => t <= yMax);
  const sy = scale(0, yMax, h, 0);
  const n = Math.max(1, live.length - 1);
  const path = (pts: { v: number }[]) => linePath(pts.map((p, i) => ({ x: i, y: p.v })), [0, n], yMax, w, h);
  const what = whatIf.source === 'shadow' ? 'shadow' : 'replay estimate';
  const summary = `Refusals per minute over ${live.length} minutes: live at most ${formatCount(Math.max(0, ...live.map((p) => p.v)))}, `
    + `draft (${what}) at most ${formatCount(Math.max(0, ...draft.map((p) => p.v)))}; `
    + `in all ${formatCount(live.reduce((s, p) => s + p.v, 0))} live, ${formatCount(draft.reduce((s, p) => s + p.v, 0))} under the draft.`;
  return (
    <figure className="whatif-chart">
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
          <path d={path(live)} className="measure" data-series="live" />
          <path d={path(draft)} className="limit" data-series="draft" />
          {/* A dot a minute, so a period of one minute (shadow just begun) still shows. */}
          {live.map((p, i) => (
            <circle key={`l${i}`} cx={scale(0, n, 0, w)(i)} cy={sy(p.v)} r="2.5" className="dot-live" />
          ))}
          {draft.map((p, i) => (
            <circle key={`d${i}`} cx={scale(0, n, 0, w)(i)} cy={sy(p.v)} r="2.5" className="dot-draft" />
          ))}
          <text x="0" y={h + 16} className="axis">
            {live.length > 0 ? new Date(live[0].t).toISOString().slice(11, 16) : ''}
          </text>
          <text x={w} y={h + 16} textAnchor="end" className="axis">
            {live.length > 0 ? `${new Date(live[live.length - 1].t).toISOString().slice(11, 16)} UTC` : ''}
          </text>
        </g>
      </svg>
      <figcaption>
        <span className="key measure-key">live refusals</span>
        <span className="key limit-key">draft refusals ({what})</span>
      </figcaption>
    </figure>
  );
}
