import { useEffect, useState } from 'react';

// A page per path under /admin/ (the gateway answers index.html for each), with the
// browser's back and forward buttons working. Six pages do not need a router library.
export const BASE = '/admin';

export const PAGES = [
  { path: '/', label: 'Overview' },
  { path: '/tiers', label: 'Tiers' },
  { path: '/tenants', label: 'Tenants' },
  { path: '/organisations', label: 'Organisations' },
  { path: '/flags', label: 'Abuse flags' },
  { path: '/lab', label: 'Lab' },
] as const;

/** The page path of a location pathname: `/admin/tiers` → `/tiers`; unknown → the path itself. */
export function routeOf(pathname: string): string {
  let p = pathname.startsWith(BASE) ? pathname.slice(BASE.length) : pathname;
  if (p === '' || p === '/index.html') p = '/';
  if (p.length > 1 && p.endsWith('/')) p = p.slice(0, -1);
  return p;
}

export function navigate(path: string): void {
  const url = BASE + (path === '/' ? '/' : path);
  if (window.location.pathname + window.location.search !== url) window.history.pushState(null, '', url);
  window.dispatchEvent(new PopStateEvent('popstate'));
}

export function useRoute(): { path: string; query: URLSearchParams } {
  const read = () => ({ path: routeOf(window.location.pathname), query: new URLSearchParams(window.location.search) });
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const on = () => setRoute(read());
    window.addEventListener('popstate', on);
    return () => window.removeEventListener('popstate', on);
  }, []);
  return route;
}
