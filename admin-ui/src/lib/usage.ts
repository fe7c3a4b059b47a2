// The bulk usage endpoint (GET /admin/api/usage?hours=) in compact form, and its points.
import type { UsagePoint } from '../components/Charts';
import type { components } from './api-types';

/**
 * Per tenant: [minutes after `from`, utilisation, tokens, pressure] for each minute with requests;
 * pressure (the ceiling signal the detector reads) is absent from older servers' answers.
 */
export type BulkUsage = components['schemas']['BulkUsage'];

/** The sparkline's points: each minute's pressure on the ceiling, or its utilisation where there is none. */
export function usagePoints(bulk: BulkUsage, tenant: string): UsagePoint[] {
  const from = Date.parse(bulk.from);
  const t = bulk.tenants.find((x) => x.tenant === tenant);
  return t ? t.points.map((p) => ({ t: from + p[0] * 60_000, v: p.length > 3 ? (p[3] as number) : p[1] })) : [];
}
