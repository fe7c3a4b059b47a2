import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { Api } from './api';
import { pagesFor, probeFeatures } from './features';
import { Nav } from '../components/Nav';

/** A gateway that answers GET /admin/api/lab/runs/latest with this status and error code. */
function gateway(status: number, code?: string) {
  const seen: string[] = [];
  const fetcher = (async (url: string) => {
    seen.push(url);
    const body = status === 200 ? { id: 'r1', status: 'done' } : { error: { message: 'm', code, status, fields: [] } };
    return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
  }) as unknown as typeof fetch;
  return { api: new Api({ user: 'ops', password: 'pw' }, () => {}, fetcher), seen };
}

const labels = (html: string) => [...html.matchAll(/<a [^>]*>([^<]+)<\/a>/g)].map((m) => m[1]);

describe('the Lab page, only where the lab is', () => {
  it('is offered when the gateway has the lab (a run, or 404 not_found before the first run)', async () => {
    const withRun = gateway(200);
    expect(await probeFeatures(withRun.api)).toEqual({ lab: true });
    expect(withRun.seen).toEqual(['/admin/api/lab/runs/latest']);
    expect(await probeFeatures(gateway(404, 'not_found').api)).toEqual({ lab: true });
    const html = renderToStaticMarkup(<Nav pages={pagesFor({ lab: true })} current="/lab" />);
    expect(labels(html)).toEqual(['Overview', 'Tiers', 'Tenants', 'Organisations', 'Abuse flags', 'Lab']);
    expect(html).toContain('<a href="/admin/lab" aria-current="page">Lab</a>');
  });

  it('is hidden when the lab endpoint is absent (404 unknown_endpoint), and while nobody knows yet', async () => {
    expect(await probeFeatures(gateway(404, 'unknown_endpoint').api)).toEqual({ lab: false });
    expect(await probeFeatures(gateway(500, 'internal_error').api)).toEqual({ lab: false });
    for (const features of [{ lab: false }, null]) {
      const html = renderToStaticMarkup(<Nav pages={pagesFor(features)} current="/" />);
      expect(labels(html)).toEqual(['Overview', 'Tiers', 'Tenants', 'Organisations', 'Abuse flags']);
      expect(html).not.toContain('/admin/lab');
    }
  });
});
