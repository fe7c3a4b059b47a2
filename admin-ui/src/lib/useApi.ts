import { useCallback, useEffect, useRef, useState } from 'react';
import { createContext, useContext } from 'react';
import { Api, ApiError } from './api';

export const ApiContext = createContext<Api | null>(null);

export function useApiClient(): Api {
  const api = useContext(ApiContext);
  if (!api) throw new Error('no API client: render inside <ApiContext.Provider>');
  return api;
}

export type Load<T> =
  | { state: 'loading'; data?: T }
  | { state: 'ok'; data: T }
  | { state: 'error'; error: ApiError; data?: T };

/**
 * Loads `path` and reloads it every `refreshMs` (when given) while the page is open. A
 * failed refresh keeps the last data on screen beside the error, so a blip does not blank
 * the page.
 */
export function useLoad<T>(path: string | null, refreshMs?: number): [Load<T>, () => void] {
  const api = useApiClient();
  const [load, setLoad] = useState<Load<T>>({ state: 'loading' });
  const [tick, setTick] = useState(0);
  const last = useRef<T | undefined>(undefined);
  const reload = useCallback(() => setTick((t) => t + 1), []);

  useEffect(() => {
    if (path === null) return;
    const ctl = new AbortController();
    api
      .get<T>(path, ctl.signal)
      .then((data) => {
        last.current = data;
        setLoad({ state: 'ok', data });
      })
      .catch((e) => {
        if (ctl.signal.aborted) return;
        const error = e instanceof ApiError ? e : new ApiError(0, 'client', String(e?.message ?? e));
        setLoad({ state: 'error', error, data: last.current });
      });
    return () => ctl.abort();
  }, [api, path, tick]);

  useEffect(() => {
    if (!refreshMs || path === null) return;
    const id = window.setInterval(() => {
      if (document.visibilityState === 'visible') reload();
    }, refreshMs);
    return () => window.clearInterval(id);
  }, [refreshMs, path, reload]);

  useEffect(() => {
    last.current = undefined;
    setLoad({ state: 'loading' });
  }, [path]);

  return [load, reload];
}
