// The draft's what-if (GET /admin/api/tiers/draft/whatif), read for the Tiers page: the stages
// compared, each tenant's change, the chart's points. Pure, so Vitest holds each.
import type { components } from './api-types';

export type WhatIf = components['schemas']['WhatIf'];
export type TierDraft = components['schemas']['TierDraft'];
export type StageCounts = components['schemas']['StageCounts'];

export const STAGES: (keyof StageCounts)[] = ['passed', 'delayed', 'downgraded', 'rejected'];

export const STAGE_LABELS: Record<keyof StageCounts, string> = {
  passed: 'passed',
  delayed: 'delayed',
  downgraded: 'downgraded',
  rejected: 'refused (429)',
};

/** A change as read beside its figures: "+12", "−3", "no change". */
export function signedChange(live: number, draft: number): string {
  const d = draft - live;
  if (d === 0) return 'no change';
  return d > 0 ? `+${d}` : `−${-d}`;
}

/** One line a stage: live, draft, and the change, in the console's order. */
export function stageRows(w: Pick<WhatIf, 'live' | 'draft'>): { stage: keyof StageCounts; label: string; live: number; draft: number; change: string }[] {
  return STAGES.map((s) => ({ stage: s, label: STAGE_LABELS[s], live: w.live[s], draft: w.draft[s], change: signedChange(w.live[s], w.draft[s]) }));
}

/** The headline: what the draft adds (or removes) in refusals and the other rungs, in words. */
export function headline(w: WhatIf): string {
  const added = w.draft.rejected - w.live.rejected;
  const span = w.source === 'shadow' ? 'in shadow' : 'by the replay estimate';
  const who = w.tenants.filter((t) => t.draft.rejected > t.live.rejected).length;
  if (w.tenantMinutes === 0) return 'No traffic in this period: nothing to compare yet.';
  if (added > 0) return `The draft would have refused ${added} more request${added === 1 ? '' : 's'} (${span}), ${who} tenant${who === 1 ? '' : 's'} affected.`;
  if (added < 0) return `The draft would have refused ${-added} fewer request${added === -1 ? '' : 's'} (${span}).`;
  const moved = STAGES.some((s) => w.live[s] !== w.draft[s]);
  return moved ? `No change in refusals (${span}); delays or downgrades differ.` : `No change (${span}): the draft decides this traffic as live does.`;
}

/** The chart's two series, minute start as epoch ms. */
export function refusalSeries(w: Pick<WhatIf, 'perMinute'>): { live: { t: number; v: number }[]; draft: { t: number; v: number }[]; max: number } {
  const live = w.perMinute.map((m) => ({ t: Date.parse(m.minute), v: m.live }));
  const draft = w.perMinute.map((m) => ({ t: Date.parse(m.minute), v: m.draft }));
  const max = Math.max(1, ...live.map((p) => p.v), ...draft.map((p) => p.v));
  return { live, draft, max };
}

/** What a refused promotion tells the operator, by the refusal. */
export function promoteRefusal(status: number, message: string): string {
  if (status === 412) {
    return 'The live tiers document changed since this page read it, so the draft was not promoted (nobody\'s edit is lost). '
      + 'Reload the page, check the diff against the new live version, then promote again.';
  }
  if (status === 409) return 'There is no draft to promote any more (someone promoted or deleted it). Reload the page.';
  return message;
}
