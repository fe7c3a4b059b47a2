// The arithmetic of the small SVG charts; the components only draw what these return.

export function scale(d0: number, d1: number, r0: number, r1: number): (v: number) => number {
  const span = d1 - d0 || 1;
  return (v) => r0 + ((v - d0) / span) * (r1 - r0);
}

/**
 * Per-minute points into `buckets` columns between `fromMs` and `toMs`, each the largest
 * value in its column. A minute without a point is idle (the usage series has no point for a
 * minute without requests), so an empty column is 0: burst-and-idle shows as gaps, a
 * flat-lined account as a wall at the top.
 */
export function bucketMax(points: { t: number; v: number }[], fromMs: number, toMs: number, buckets: number): number[] {
  const out = new Array<number>(buckets).fill(0);
  const span = toMs - fromMs;
  if (span <= 0 || buckets <= 0) return out;
  for (const p of points) {
    if (p.t < fromMs || p.t >= toMs || !Number.isFinite(p.v)) continue;
    const i = Math.min(buckets - 1, Math.floor(((p.t - fromMs) / span) * buckets));
    out[i] = Math.max(out[i], p.v);
  }
  return out;
}

const r = (x: number) => Math.round(x * 10) / 10;

/** An area under `values` (one column each) in a width × height box, `max` at the top. */
export function areaPath(values: number[], width: number, height: number, max: number): string {
  if (values.length === 0) return '';
  const w = width / values.length;
  const y = scale(0, max, height, 0);
  let d = `M0,${height}`;
  values.forEach((v, i) => {
    const top = r(Math.max(0, y(Math.min(v, max))));
    d += ` L${r(i * w)},${top} L${r((i + 1) * w)},${top}`;
  });
  return `${d} L${r(width)},${height} Z`;
}

/** A polyline through (x, y) points, scaled into the box; non-finite y values break the line. */
export function linePath(points: { x: number; y: number }[], xDomain: [number, number], yMax: number, width: number, height: number): string {
  const sx = scale(xDomain[0], xDomain[1], 0, width);
  const sy = scale(0, yMax, height, 0);
  let d = '';
  let pen = false;
  for (const p of points) {
    if (!Number.isFinite(p.y)) {
      pen = false;
      continue;
    }
    d += `${pen ? ' L' : d === '' ? 'M' : ' M'}${r(sx(p.x))},${r(sy(Math.min(p.y, yMax)))}`;
    pen = true;
  }
  return d;
}

/** Round tick values from 0 to at least `max`: 1, 2 or 5 times a power of ten. */
export function niceTicks(max: number, count = 4): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / count;
  const pow = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= raw) ?? 10 * pow;
  const ticks: number[] = [];
  for (let v = 0; v < max + step * 0.999; v += step) ticks.push(Math.round(v * 1e9) / 1e9);
  return ticks;
}

/** A short description of a usage series for screen readers and the tooltip. */
export function describeUsage(values: number[], threshold: number): string {
  if (values.length === 0 || values.every((v) => v === 0)) return 'idle: no requests in this period';
  const busy = values.filter((v) => v > 0).length;
  const high = values.filter((v) => v >= threshold).length;
  const peak = Math.max(...values);
  const share = (n: number) => Math.round((100 * n) / values.length);
  if (high / values.length >= 0.8) return `flat at the ceiling: at or above ${Math.round(threshold * 100)}% in ${share(high)}% of the period`;
  return `active in ${share(busy)}% of the period, peak ${Math.round(peak * 100)}% of the ceiling`;
}
