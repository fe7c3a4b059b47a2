import type { Credentials } from './api';

// Credentials live in this tab's sessionStorage only: gone when the tab closes, never in a
// cookie (so nothing is sent on its own, and any replica can answer: there is no session).
const KEY = 'sluice-admin-credentials';

export interface Storage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export function loadCredentials(storage: Storage | undefined = globalThis.sessionStorage): Credentials | null {
  try {
    const raw = storage?.getItem(KEY);
    if (!raw) return null;
    const c = JSON.parse(raw);
    return typeof c?.user === 'string' && typeof c?.password === 'string' ? { user: c.user, password: c.password } : null;
  } catch {
    return null;
  }
}

export function saveCredentials(c: Credentials, storage: Storage | undefined = globalThis.sessionStorage): void {
  storage?.setItem(KEY, JSON.stringify(c));
}

export function clearCredentials(storage: Storage | undefined = globalThis.sessionStorage): void {
  storage?.removeItem(KEY);
}
