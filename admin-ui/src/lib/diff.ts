// A line diff by jsdiff (the `diff` package: Myers' algorithm, minimal, as people expect). It is
// given the lines as splitLines reads them rather than the texts, so that CRLF and a final
// newline count as they always have here (jsdiff's diffLines keeps each line's newline).
import { diffArrays } from 'diff';

export type DiffLine =
  | { kind: 'same'; text: string; oldLine: number; newLine: number }
  | { kind: 'removed'; text: string; oldLine: number }
  | { kind: 'added'; text: string; newLine: number };

export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop(); // a final newline is not a line of its own
  return lines;
}

export function diffLines(oldText: string, newText: string): DiffLine[] {
  const out: DiffLine[] = [];
  let oldLine = 1;
  let newLine = 1;
  for (const change of diffArrays(splitLines(oldText), splitLines(newText))) {
    for (const text of change.value) {
      if (change.removed) out.push({ kind: 'removed', text, oldLine: oldLine++ });
      else if (change.added) out.push({ kind: 'added', text, newLine: newLine++ });
      else out.push({ kind: 'same', text, oldLine: oldLine++, newLine: newLine++ });
    }
  }
  // Removals before additions within a changed block reads better: "- old" then "+ new". jsdiff
  // prefers that order between equal diffs but does not promise it, so it is kept here.
  return reorderBlocks(out);
}

function reorderBlocks(lines: DiffLine[]): DiffLine[] {
  const out: DiffLine[] = [];
  let removed: DiffLine[] = [];
  let added: DiffLine[] = [];
  const flush = () => {
    out.push(...removed, ...added);
    removed = [];
    added = [];
  };
  for (const l of lines) {
    if (l.kind === 'removed') removed.push(l);
    else if (l.kind === 'added') added.push(l);
    else {
      flush();
      out.push(l);
    }
  }
  flush();
  return out;
}

export function hasChanges(diff: DiffLine[]): boolean {
  return diff.some((d) => d.kind !== 'same');
}

export interface Hunk {
  lines: DiffLine[];
}

/** The changed lines with `context` unchanged lines around each change; gaps between hunks are left out. */
export function hunks(diff: DiffLine[], context = 3): Hunk[] {
  const keep = new Array<boolean>(diff.length).fill(false);
  diff.forEach((d, i) => {
    if (d.kind === 'same') return;
    for (let k = Math.max(0, i - context); k <= Math.min(diff.length - 1, i + context); k++) keep[k] = true;
  });
  const out: Hunk[] = [];
  let current: DiffLine[] | null = null;
  diff.forEach((d, i) => {
    if (keep[i]) {
      if (!current) {
        current = [];
        out.push({ lines: current });
      }
      current.push(d);
    } else {
      current = null;
    }
  });
  return out;
}

export function diffStats(diff: DiffLine[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const d of diff) {
    if (d.kind === 'added') added++;
    else if (d.kind === 'removed') removed++;
  }
  return { added, removed };
}
