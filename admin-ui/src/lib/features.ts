// What this gateway serves beyond the core admin API. The lab (its scenario runs) is an optional
// module: where it is absent, its endpoints are the admin API's 404 `unknown_endpoint`, and the
// console hides the Lab page rather than show a page that can only fail.
import { ApiError, type Api } from './api';
import { PAGES } from './router';

export interface Features {
  lab: boolean;
}

/** A 404 from the API's catch-all (no such endpoint), as opposed to "no run yet" (404 not_found). */
export function isMissingEndpoint(e: unknown): boolean {
  return e instanceof ApiError && e.status === 404 && e.code === 'unknown_endpoint';
}

/**
 * Asks the gateway. The lab's latest run answers 200, or 404 `not_found` before any run: both
 * mean the lab is there. Any other failure says nothing for sure, so the page stays hidden.
 */
export async function probeFeatures(api: Pick<Api, 'get'>, signal?: AbortSignal): Promise<Features> {
  try {
    await api.get('/lab/runs/latest', signal);
    return { lab: true };
  } catch (e) {
    if (e instanceof DOMException && e.name === 'AbortError') throw e;
    return { lab: e instanceof ApiError && e.status === 404 && e.code === 'not_found' };
  }
}

/** The pages to offer: the Lab only once the gateway said it has one. */
export function pagesFor(features: Features | null): (typeof PAGES)[number][] {
  return PAGES.filter((p) => p.path !== '/lab' || features?.lab === true);
}
