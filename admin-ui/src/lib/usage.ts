// The bulk usage endpoint (GET /admin/api/usage?hours=) in compact form, and its points.
import type { UsagePoint } from '../components/Charts';

export interface BulkUsage {
  hours: number;
  from: string;
  to: string;
  threshold: number;
  consecutiveMinutes: number;
  /** Per tenant: [minutes after `from`, utilisation, tokens] for each minute with requests. */
  tenants: { tenant: string; tier: string; points: [number, number, number][] }[];
}

export function usagePoints(bulk: BulkUsage, tenant: string): UsagePoint[] {
  const from = Date.parse(bulk.from);
  const t = bulk.tenants.find((x) => x.tenant === tenant);
  return t ? t.points.map(([m, u]) => ({ t: from + m * 60_000, v: u })) : [];
}
