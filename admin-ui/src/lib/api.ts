// The admin API client: Basic credentials on every call, JSON errors turned into ApiError.
// `X-Requested-With` asks the gateway not to send a WWW-Authenticate challenge, so a wrong
// password shows in our login form, never in the browser's own dialog.
import type { components } from './api-types';

/** One problem of a refused request (the admin API's error body, as its contract says). */
export type FieldProblem = components['schemas']['Error']['error']['fields'][number];

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly fields: FieldProblem[];
  readonly headers: Headers | null;

  constructor(status: number, code: string, message: string, fields: FieldProblem[] = [], headers: Headers | null = null) {
    super(message);
    this.status = status;
    this.code = code;
    this.fields = fields;
    this.headers = headers;
  }
}

export interface Credentials {
  user: string;
  password: string;
}

/** The Authorization header for Basic credentials; UTF-8 safe (btoa alone only takes Latin-1). */
export function basicAuth(c: Credentials): string {
  const bytes = new TextEncoder().encode(`${c.user}:${c.password}`);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return `Basic ${btoa(binary)}`;
}

/** Reads the API's error body, or says plainly what came back instead. */
export async function toApiError(res: Response): Promise<ApiError> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text);
    const e = body?.error;
    if (e && typeof e.message === 'string') {
      return new ApiError(res.status, String(e.code ?? 'error'), e.message, Array.isArray(e.fields) ? e.fields : [], res.headers);
    }
  } catch {
    // not JSON: fall through
  }
  const what = res.status === 502 || res.status === 503 || res.status === 504
    ? 'The gateway did not answer properly'
    : `The gateway answered ${res.status} ${res.statusText}`.trim();
  return new ApiError(res.status, 'http_' + res.status, `${what}.`, [], res.headers);
}

export type Fetch = typeof fetch;

export interface ApiOptions {
  method?: string;
  body?: unknown;
  /** Sent as is with this content type instead of JSON. */
  raw?: { contentType: string; text: string };
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export interface ApiResult<T> {
  data: T;
  headers: Headers;
  status: number;
}

export class Api {
  private readonly credentials: Credentials;
  private readonly fetcher: Fetch;
  private readonly onUnauthorized: (e: ApiError) => void;

  constructor(credentials: Credentials, onUnauthorized: (e: ApiError) => void = () => {}, fetcher: Fetch = fetch.bind(globalThis)) {
    this.credentials = credentials;
    this.onUnauthorized = onUnauthorized;
    this.fetcher = fetcher;
  }

  async call<T>(path: string, opts: ApiOptions = {}): Promise<ApiResult<T>> {
    const headers: Record<string, string> = {
      Authorization: basicAuth(this.credentials),
      'X-Requested-With': 'XMLHttpRequest',
      Accept: 'application/json',
      ...opts.headers,
    };
    let body: string | undefined;
    if (opts.raw) {
      headers['Content-Type'] = opts.raw.contentType;
      body = opts.raw.text;
    } else if (opts.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(opts.body);
    }
    let res: Response;
    try {
      res = await this.fetcher(`/admin/api${path}`, { method: opts.method ?? 'GET', headers, body, signal: opts.signal, cache: 'no-store' });
    } catch (e) {
      if (e instanceof DOMException && e.name === 'AbortError') throw e;
      throw new ApiError(0, 'network', 'The gateway cannot be reached. Check that it is running and your network is up.');
    }
    if (!res.ok) {
      const err = await toApiError(res);
      if (res.status === 401) this.onUnauthorized(err);
      throw err;
    }
    const data = res.status === 204 ? (undefined as T) : ((await res.json()) as T);
    return { data, headers: res.headers, status: res.status };
  }

  /** A file the API sends (the usage export): its text, type and the name the gateway gave it. */
  async download(path: string): Promise<{ blob: Blob; disposition: string | null }> {
    let res: Response;
    try {
      res = await this.fetcher(`/admin/api${path}`, {
        headers: { Authorization: basicAuth(this.credentials), 'X-Requested-With': 'XMLHttpRequest', Accept: 'text/csv, application/json' },
        cache: 'no-store',
      });
    } catch {
      throw new ApiError(0, 'network', 'The gateway cannot be reached. Check that it is running and your network is up.');
    }
    if (!res.ok) {
      const err = await toApiError(res);
      if (res.status === 401) this.onUnauthorized(err);
      throw err;
    }
    return { blob: await res.blob(), disposition: res.headers.get('Content-Disposition') };
  }

  async get<T>(path: string, signal?: AbortSignal): Promise<T> {
    return (await this.call<T>(path, { signal })).data;
  }

  async send<T>(method: string, path: string, body?: unknown): Promise<T> {
    return (await this.call<T>(path, { method, body })).data;
  }
}

/** Checks credentials against a cheap endpoint; resolves, or rejects with the API's reason. */
export async function checkLogin(c: Credentials, fetcher: Fetch = fetch.bind(globalThis)): Promise<void> {
  await new Api(c, () => {}, fetcher).get('/tiers');
}
