import type { ReactNode } from 'react';
import type { ApiError, FieldProblem } from '../lib/api';

export function Loading({ what }: { what: string }) {
  return (
    <p className="state loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" /> Loading {what}…
    </p>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="state empty">
      <p className="state-title">{title}</p>
      {children && <div>{children}</div>}
    </div>
  );
}

/** What went wrong, in words, with a way to try again. */
export function ErrorNotice({ error, retry, what }: { error: ApiError; retry?: () => void; what?: string }) {
  return (
    <div className="notice error" role="alert">
      <p>
        <strong>{what ? `Could not load ${what}.` : 'That did not work.'}</strong> {error.message}
      </p>
      {error.fields.length > 0 && <ProblemList problems={error.fields} />}
      {retry && (
        <button type="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function ProblemList({ problems, onLine }: { problems: FieldProblem[]; onLine?: (line: number) => void }) {
  return (
    <ul className="problems">
      {problems.map((p, i) => (
        <li key={i}>
          {p.line ? (
            onLine ? (
              <button type="button" className="link" onClick={() => onLine(p.line!)}>
                line {p.line}
              </button>
            ) : (
              <span>line {p.line}</span>
            )
          ) : null}
          {p.line ? ': ' : ''}
          <code>{p.field}</code>: {p.message}
        </li>
      ))}
    </ul>
  );
}

export function Notice({ kind, children }: { kind: 'ok' | 'warn' | 'info' | 'error'; children: ReactNode }) {
  return (
    <div className={`notice ${kind}`} role={kind === 'error' || kind === 'warn' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}
