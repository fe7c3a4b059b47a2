// A line diff by longest common subsequence: small documents (a tiers.yaml is a few hundred
// lines), so the O(n·m) table is cheap and the result is the minimal one people expect.

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
  const a = splitLines(oldText);
  const b = splitLines(newText);
  // Common head and tail first: an edit touches a few lines of a long file.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const am = a.slice(head, a.length - tail);
  const bm = b.slice(head, b.length - tail);
  const n = am.length;
  const m = bm.length;
  // lcs[i][j]: length of the LCS of am[i..] and bm[j..]
  const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i][j] = am[i] === bm[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const out: DiffLine[] = [];
  for (let k = 0; k < head; k++) out.push({ kind: 'same', text: a[k], oldLine: k + 1, newLine: k + 1 });
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && am[i] === bm[j]) {
      out.push({ kind: 'same', text: am[i], oldLine: head + i + 1, newLine: head + j + 1 });
      i++;
      j++;
    } else if (j < m && (i >= n || lcs[i][j + 1] >= lcs[i + 1][j])) {
      out.push({ kind: 'added', text: bm[j], newLine: head + j + 1 });
      j++;
    } else {
      out.push({ kind: 'removed', text: am[i], oldLine: head + i + 1 });
      i++;
    }
  }
  for (let k = 0; k < tail; k++) {
    out.push({ kind: 'same', text: a[a.length - tail + k], oldLine: a.length - tail + k + 1, newLine: b.length - tail + k + 1 });
  }
  // Removals before additions within a changed block reads better: "- old" then "+ new".
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
