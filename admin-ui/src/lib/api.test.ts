import { describe, expect, it } from 'vitest';
import { Api, ApiError, basicAuth, toApiError } from './api';
import { routeOf } from './router';
import { loadCredentials, saveCredentials, clearCredentials } from './auth';
import { usagePoints } from './usage';
import { bottleneck, providerCount, requestsIn, type Overview } from './overview';

function response(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(status === 204 ? null : typeof body === 'string' ? body : JSON.stringify(body), { status, headers });
}

describe('the API client', () => {
  it('sends Basic credentials (UTF-8) and asks for no browser dialog', async () => {
    expect(basicAuth({ user: 'ops', password: 'pässword' })).toBe('Basic b3BzOnDDpHNzd29yZA==');
    let seen: RequestInit | undefined;
    let url = '';
    const api = new Api({ user: 'a', password: 'b' }, () => {}, (async (u: string, init: RequestInit) => {
      url = u;
      seen = init;
      return response(200, { ok: true });
    }) as unknown as typeof fetch);
    expect(await api.get('/tiers')).toEqual({ ok: true });
    expect(url).toBe('/admin/api/tiers');
    const h = seen!.headers as Record<string, string>;
    expect(h.Authorization).toBe(basicAuth({ user: 'a', password: 'b' }));
    expect(h['X-Requested-With']).toBe('XMLHttpRequest');
  });

  it('reads the error body, fields and all, and reports 401 to the app', async () => {
    let unauthorized: ApiError | null = null;
    const api = new Api({ user: 'a', password: 'b' }, (e) => (unauthorized = e), (async () =>
      response(401, { error: { message: 'Wrong admin credentials.', code: 'unauthorized', fields: [] } })) as unknown as typeof fetch);
    await expect(api.get('/tiers')).rejects.toMatchObject({ status: 401, code: 'unauthorized' });
    expect(unauthorized!.message).toBe('Wrong admin credentials.');

    const e = await toApiError(response(422, { error: { message: 'bad', code: 'validation_failed', fields: [{ field: 'tier', message: 'unknown' }] } }));
    expect(e.fields).toEqual([{ field: 'tier', message: 'unknown' }]);
    const gw = await toApiError(response(502, '<html>bad gateway</html>'));
    expect(gw.message).toBe('The gateway did not answer properly.');
  });

  it('says the gateway is unreachable when fetch fails', async () => {
    const api = new Api({ user: 'a', password: 'b' }, () => {}, (async () => {
      throw new TypeError('Failed to fetch');
    }) as unknown as typeof fetch);
    await expect(api.get('/tiers')).rejects.toMatchObject({ status: 0, code: 'network' });
  });

  it('sends YAML as is, and JSON bodies as JSON', async () => {
    const seen: RequestInit[] = [];
    const api = new Api({ user: 'a', password: 'b' }, () => {}, (async (_u: string, init: RequestInit) => {
      seen.push(init);
      return response(204, '');
    }) as unknown as typeof fetch);
    await api.call('/tiers', { method: 'PUT', raw: { contentType: 'application/yaml', text: 'tiers: {}' }, headers: { 'If-Match': '"v1"' } });
    await api.send('PATCH', '/tenants/x', { suspended: true });
    expect((seen[0].headers as Record<string, string>)['If-Match']).toBe('"v1"');
    expect(seen[0].body).toBe('tiers: {}');
    expect(seen[1].body).toBe('{"suspended":true}');
    expect((seen[1].headers as Record<string, string>)['Content-Type']).toBe('application/json');
  });
});

describe('small pieces', () => {
  it('routes under /admin', () => {
    expect(routeOf('/admin/')).toBe('/');
    expect(routeOf('/admin')).toBe('/');
    expect(routeOf('/admin/tiers/')).toBe('/tiers');
    expect(routeOf('/admin/index.html')).toBe('/');
  });

  it('keeps credentials in the given storage only', () => {
    const m = new Map<string, string>();
    const s = { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v), removeItem: (k: string) => void m.delete(k) };
    expect(loadCredentials(s)).toBeNull();
    saveCredentials({ user: 'u', password: 'p' }, s);
    expect(loadCredentials(s)).toEqual({ user: 'u', password: 'p' });
    clearCredentials(s);
    expect(loadCredentials(s)).toBeNull();
    m.set('sluice-admin-credentials', '{broken');
    expect(loadCredentials(s)).toBeNull();
  });

  it('expands the compact usage series', () => {
    const bulk = { hours: 1, from: '2026-11-30T09:00:00Z', to: '2026-11-30T10:00:00Z', threshold: 0.9, consecutiveMinutes: 15, tenants: [{ tenant: 'a', tier: 'free', points: [[0, 0.5, 5000], [2, 0.95, 9500]] as [number, number, number][] }] };
    expect(usagePoints(bulk, 'a')).toEqual([
      { t: Date.parse('2026-11-30T09:00:00Z'), v: 0.5 },
      { t: Date.parse('2026-11-30T09:02:00Z'), v: 0.95 },
    ]);
    expect(usagePoints(bulk, 'nobody')).toEqual([]);
  });

  it('reads the pressure of a point when the server sends it', () => {
    const bulk = { hours: 1, from: '2026-11-30T09:00:00Z', to: '2026-11-30T10:00:00Z', threshold: 0.9, consecutiveMinutes: 15, tenants: [{ tenant: 'a', tier: 'free', points: [[0, 0.889, 8888, 1], [1, 0.5, 5000]] as ([number, number, number] | [number, number, number, number])[] }] };
    expect(usagePoints(bulk, 'a')).toEqual([
      { t: Date.parse('2026-11-30T09:00:00Z'), v: 1 },
      { t: Date.parse('2026-11-30T09:01:00Z'), v: 0.5 },
    ]);
  });

  it('says when the provider is the bottleneck', () => {
    const o = {
      decisions: { lastMinute: { passed: 5, delayed: 2, rejected: 1 }, sinceStart: {} },
      budgets: [{ budget: 'default:*', utilisation: { tokens: 0.95, requests: 0.2 }, inFlight: 3, concurrencyLimit: 194, maxInFlight: 200, queueDepth: 0, queueWaitP95Ms: { lastMinute: null, sinceStart: null }, pricePerMillionTokens: 3, tokenRatio: 1 }],
    } as unknown as Overview;
    expect(requestsIn(o.decisions.lastMinute)).toBe(6);
    expect(bottleneck(o)).toMatch(/95% used/);
    o.budgets[0].utilisation.tokens = 0.1;
    expect(bottleneck(o)).toBeNull();
  });

  it("says how the provider counts against Sluice's estimate", () => {
    expect(providerCount(1)).toBe('as Sluice estimates (× 1.00)');
    expect(providerCount(1.0041)).toBe('as Sluice estimates (× 1.00)');
    expect(providerCount(1.1512)).toBe('15% more than Sluice estimates (× 1.15)');
    expect(providerCount(0.85)).toBe('15% less than Sluice estimates (× 0.85)');
    expect(providerCount(Number.NaN)).toBe('as Sluice estimates (× 1.00)');
  });
});
