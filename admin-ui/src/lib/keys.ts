// A key's own caps and expiry as the console issues and edits them. Pure: the form's strings to the
// admin API's KeyCaps, and how a key reads in the list.
import type { components } from './api-types';

export type Key = components['schemas']['Key'];

export interface CapsForm {
  tokensPerMinute: string;
  usdPerDay: string;
  /** As an <input type="datetime-local"> writes it, read as UTC. */
  expiresAt: string;
}

export const noCaps: CapsForm = { tokensPerMinute: '', usdPerDay: '', expiresAt: '' };

export function capsFormOf(k: Key): CapsForm {
  return {
    tokensPerMinute: k.tokensPerMinute == null ? '' : String(k.tokensPerMinute),
    usdPerDay: k.usdPerDay == null ? '' : String(k.usdPerDay),
    expiresAt: k.expiresAt ? k.expiresAt.slice(0, 16) : '',
  };
}

/**
 * The body to send. Issuing, an empty field is no cap (left out); editing, an empty field removes
 * the cap (0) or the expiry (null), so what the form shows is what the key gets.
 */
export function capsBody(f: CapsForm, editing: boolean, now: number = Date.now()): { body: Record<string, unknown> } | { problem: string } {
  const body: Record<string, unknown> = {};
  const tpm = f.tokensPerMinute.trim();
  if (tpm) {
    if (!/^\d+$/.test(tpm) || Number(tpm) > 1e15) return { problem: 'Tokens per minute: a whole number up to 10^15.' };
    body.tokensPerMinute = Number(tpm);
  } else if (editing) body.tokensPerMinute = 0;
  const usd = f.usdPerDay.trim();
  if (usd) {
    if (!/^\d+(\.\d{1,6})?$/.test(usd) || Number(usd) > 1e9) return { problem: 'USD per day: an amount with at most 6 decimals.' };
    body.usdPerDay = Number(usd);
  } else if (editing) body.usdPerDay = 0;
  const exp = f.expiresAt.trim();
  if (exp) {
    const at = Date.parse(`${exp.length === 16 ? `${exp}:00` : exp}Z`);
    if (Number.isNaN(at)) return { problem: 'Expiry: pick a date and time (UTC).' };
    if (at <= now) return { problem: 'Expiry: it must be in the future.' };
    body.expiresAt = new Date(at).toISOString().replace('.000Z', 'Z');
  } else if (editing) body.expiresAt = null;
  return { body };
}

export function isExpired(k: Pick<Key, 'expiresAt'>, now: number = Date.now()): boolean {
  return !!k.expiresAt && Date.parse(k.expiresAt) <= now;
}

/** "2,000 tokens/min · $0.25/day": the key's own caps, or null where it has none. */
export function capsSummary(k: Pick<Key, 'tokensPerMinute' | 'usdPerDay'>): string | null {
  const parts: string[] = [];
  if (k.tokensPerMinute != null && k.tokensPerMinute > 0) parts.push(`${k.tokensPerMinute.toLocaleString('en-US')} tokens/min`);
  if (k.usdPerDay != null && k.usdPerDay > 0) parts.push(`$${k.usdPerDay}/day`);
  return parts.length > 0 ? parts.join(' · ') : null;
}
