import { diffLines, diffStats, hunks } from '../lib/diff';

/** A unified line diff, old → new, with a few lines of context around each change. */
export function DiffView({ oldText, newText, oldLabel, newLabel }: { oldText: string; newText: string; oldLabel: string; newLabel: string }) {
  const diff = diffLines(oldText, newText);
  const stats = diffStats(diff);
  const parts = hunks(diff, 3);
  if (parts.length === 0) return <p className="state empty">No differences: the two versions are the same.</p>;
  return (
    <div className="diff" aria-label={`Changes from ${oldLabel} to ${newLabel}`}>
      <p className="diff-head">
        <span className="removed-key">− {oldLabel}</span> <span className="added-key">+ {newLabel}</span>{' '}
        <span className="muted">
          ({stats.removed} line{stats.removed === 1 ? '' : 's'} removed, {stats.added} added)
        </span>
      </p>
      {parts.map((h, i) => (
        <pre key={i} className="hunk" tabIndex={0}>
          {h.lines.map((l, j) => (
            <div key={j} className={`dl ${l.kind}`}>
              <span className="ln" aria-hidden="true">
                {l.kind === 'added' ? '' : l.oldLine}
              </span>
              <span className="ln" aria-hidden="true">
                {l.kind === 'removed' ? '' : l.newLine}
              </span>
              <span className="sign">{l.kind === 'added' ? '+' : l.kind === 'removed' ? '−' : ' '}</span>
              <span className="txt">{l.text}</span>
            </div>
          ))}
        </pre>
      ))}
    </div>
  );
}
