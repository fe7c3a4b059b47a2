import { BASE, navigate, type PAGES } from '../lib/router';

/** The menu of pages: plain links (new tabs work), followed in place on a plain click. */
export function Nav({ pages, current }: { pages: readonly (typeof PAGES)[number][]; current: string }) {
  return (
    <nav aria-label="Pages">
      {pages.map((p) => (
        <a
          key={p.path}
          href={BASE + (p.path === '/' ? '/' : p.path)}
          aria-current={current === p.path ? 'page' : undefined}
          onClick={(e) => {
            if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
            e.preventDefault();
            navigate(p.path);
          }}
        >
          {p.label}
        </a>
      ))}
    </nav>
  );
}
