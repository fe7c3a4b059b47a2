// Organisations as the console edits them: the form's strings to the admin API's bodies (the
// gateway checks again and answers 422 per field), and the shared windows' bars. Pure.
import type { components } from './api-types';

type S = components['schemas'];
export type Organisation = S['Organisation'];
export type OrganisationUsage = S['OrganisationUsage'];
export type OrganisationSpend = S['OrganisationSpend'];
export type WindowNow = OrganisationUsage['windows'][number];

/** The request cap the API writes for "none" (Long.MAX_VALUE): shown as an empty field. */
export const NO_REQUEST_CAP = 9223372036854775807;

export interface WindowForm {
  name: string;
  minutes: string;
  tokens: string;
  requests: string;
}

export interface OrganisationForm {
  id: string;
  name: string;
  windows: WindowForm[];
  usdPerDay: string;
  usdPerMonth: string;
  timeZone: string;
}

export interface Problem {
  field: string;
  message: string;
}

export function emptyForm(): OrganisationForm {
  return { id: '', name: '', windows: [], usdPerDay: '', usdPerMonth: '', timeZone: 'UTC' };
}

/** The form filled from an organisation, to edit it. */
export function formOf(o: Organisation): OrganisationForm {
  const n = (v: number | null | undefined) => (v == null ? '' : String(v));
  return {
    id: o.id,
    name: o.name === o.id ? '' : o.name,
    windows: o.windows.map((w) => ({
      name: w.name,
      minutes: String(w.seconds / 60),
      tokens: String(w.tokens),
      requests: w.requests >= NO_REQUEST_CAP ? '' : String(w.requests),
    })),
    usdPerDay: n(o.spend?.['usd-per-day']),
    usdPerMonth: n(o.spend?.['usd-per-month']),
    timeZone: o.spend?.['time-zone'] ?? 'UTC',
  };
}

const whole = (v: string) => /^\d+$/.test(v.trim());
const amount = (v: string) => /^\d+(\.\d{1,6})?$/.test(v.trim());

/**
 * The body of POST (creating) or PATCH (editing): windows as the API takes them (seconds, tokens,
 * requests left out for none), spend with the periods given ({} removes the budgets when editing).
 * Problems a person can fix before sending are named per field, as the API names them.
 */
export function organisationBody(f: OrganisationForm, creating: boolean): { body: Record<string, unknown> } | { problems: Problem[] } {
  const problems: Problem[] = [];
  const body: Record<string, unknown> = {};
  if (creating) {
    if (!/^[a-z0-9][a-z0-9._-]{0,63}$/.test(f.id.trim())) problems.push({ field: 'id', message: 'Lower-case letters, digits, ".", "_" or "-", at most 64.' });
    body.id = f.id.trim();
  }
  if (f.name.trim()) body.name = f.name.trim();
  const seen = new Set<string>();
  body.windows = f.windows.map((w, i) => {
    const at = `windows[${i}]`;
    if (!w.name.trim()) problems.push({ field: `${at}.name`, message: 'Name the window.' });
    else if (seen.has(w.name.trim())) problems.push({ field: `${at}.name`, message: 'Each window name once.' });
    seen.add(w.name.trim());
    if (!whole(w.minutes) || Number(w.minutes) < 1) problems.push({ field: `${at}.seconds`, message: 'A whole number of minutes, at least 1.' });
    if (!whole(w.tokens) || Number(w.tokens) < 1) problems.push({ field: `${at}.tokens`, message: 'A whole number of tokens, at least 1.' });
    if (w.requests.trim() && (!whole(w.requests) || Number(w.requests) < 1)) problems.push({ field: `${at}.requests`, message: 'A whole number, at least 1, or empty for no cap.' });
    const out: Record<string, unknown> = { name: w.name.trim(), seconds: Number(w.minutes) * 60, tokens: Number(w.tokens) };
    if (w.requests.trim()) out.requests = Number(w.requests);
    return out;
  });
  if (creating && f.windows.length === 0) delete body.windows;
  const spend: Record<string, unknown> = {};
  for (const [field, v] of [['usd-per-day', f.usdPerDay], ['usd-per-month', f.usdPerMonth]] as const) {
    if (!v.trim()) continue;
    if (!amount(v)) problems.push({ field: `spend.${field}`, message: 'USD, at most 6 decimals.' });
    spend[field] = Number(v);
  }
  if (Object.keys(spend).length > 0) spend['time-zone'] = f.timeZone.trim() || 'UTC';
  if (!creating || Object.keys(spend).length > 0) body.spend = spend;
  return problems.length > 0 ? { problems } : { body };
}

/** "1 min", "1 h", "30 days": a window's length as operators say it. */
export function windowLength(seconds: number): string {
  if (seconds % 86_400 === 0) return seconds === 86_400 ? '1 day' : `${seconds / 86_400} days`;
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  return `${Math.round(seconds / 60)} min`;
}

/** A shared window's bar: share of its tokens or requests, whichever is fuller, and its colour as the budgets'. */
export function windowShare(w: WindowNow): { share: number; level: 'ok' | 'warm' | 'hot' } {
  const tokens = w.limitTokens > 0 ? w.usedTokens / w.limitTokens : 0;
  const requests = w.limitRequests ? w.usedRequests / w.limitRequests : 0;
  const share = Math.max(tokens, requests);
  return { share, level: share >= 1 ? 'hot' : share > 0.8 ? 'warm' : 'ok' };
}

/** The tenants that could be added: every one not already in this organisation (a member elsewhere moves). */
export function candidates(tenants: { id: string; organisation?: string }[], org: string): { id: string; from?: string }[] {
  return tenants.filter((t) => t.organisation !== org).map((t) => ({ id: t.id, from: t.organisation }));
}
