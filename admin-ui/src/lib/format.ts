// Numbers as an operator reads them at a glance.

export function formatCount(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–';
  const abs = Math.abs(n);
  if (abs >= 1e9) return `${trim(n / 1e9)}B`;
  if (abs >= 1e6) return `${trim(n / 1e6)}M`;
  if (abs >= 1e4) return `${trim(n / 1e3)}k`;
  return Number.isInteger(n) ? n.toLocaleString('en-US') : n.toFixed(1);
}

function trim(x: number): string {
  return x.toFixed(x >= 100 ? 0 : 1).replace(/\.0$/, '');
}

export function formatPercent(share: number | null | undefined, digits = 0): string {
  if (share === null || share === undefined || !Number.isFinite(share)) return '–';
  return `${(share * 100).toFixed(digits)}%`;
}

export function formatUsd(usd: number | null | undefined): string {
  if (usd === null || usd === undefined || !Number.isFinite(usd)) return '–';
  if (usd !== 0 && Math.abs(usd) < 0.01) return `$${usd.toFixed(4)}`;
  return `$${usd.toFixed(2)}`;
}

export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const m = Math.floor(ms / 60_000);
  const s = Math.round((ms % 60_000) / 1000);
  return s === 0 ? `${m} min` : `${m} min ${s} s`;
}

/** "3 min ago", "in 2 h": for timestamps from the API (ISO-8601). */
export function relativeTime(iso: string | null | undefined, now: number = Date.now()): string {
  if (!iso) return '–';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const d = Math.round((now - t) / 1000);
  const abs = Math.abs(d);
  const unit = abs < 60 ? `${abs} s` : abs < 3600 ? `${Math.round(abs / 60)} min` : abs < 86_400 ? `${Math.round(abs / 3600)} h` : `${Math.round(abs / 86_400)} d`;
  if (abs < 5) return 'just now';
  return d >= 0 ? `${unit} ago` : `in ${unit}`;
}

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '–';
  const t = new Date(iso);
  if (Number.isNaN(t.getTime())) return iso;
  return t.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC').replace(/Z$/, ' UTC');
}
