import { describe, expect, it } from 'vitest';
import { diffLines, diffStats, hunks, splitLines } from './diff';

describe('diffLines', () => {
  it('finds one changed line among unchanged ones, removal before addition', () => {
    const d = diffLines('a\nb\nc\n', 'a\nB\nc\n');
    expect(d.map((l) => `${l.kind}:${l.text}`)).toEqual(['same:a', 'removed:b', 'added:B', 'same:c']);
    expect(diffStats(d)).toEqual({ added: 1, removed: 1 });
  });

  it('numbers lines of both versions', () => {
    const d = diffLines('x\ny\n', 'w\nx\ny\n');
    expect(d[0]).toEqual({ kind: 'added', text: 'w', newLine: 1 });
    expect(d[1]).toEqual({ kind: 'same', text: 'x', oldLine: 1, newLine: 2 });
    expect(d[2]).toEqual({ kind: 'same', text: 'y', oldLine: 2, newLine: 3 });
  });

  it('is minimal: a moved block costs only its own lines', () => {
    const old = ['1', '2', '3', '4', '5', '6'].join('\n');
    const neu = ['1', '2', '4', '5', '6', '3'].join('\n');
    expect(diffStats(diffLines(old, neu))).toEqual({ added: 1, removed: 1 });
  });

  it('handles empty sides and CRLF', () => {
    expect(diffLines('', 'a\n').map((l) => l.kind)).toEqual(['added']);
    expect(diffLines('a\r\nb\r\n', 'a\nb\n').every((l) => l.kind === 'same')).toBe(true);
    // A missing final newline is no change either: a textarea's value may or may not end in one.
    expect(diffLines('a\nb', 'a\nb\n').every((l) => l.kind === 'same')).toBe(true);
    expect(splitLines('')).toEqual([]);
  });

  it('keeps context around changes and leaves out the rest', () => {
    const old = Array.from({ length: 30 }, (_, i) => `l${i}`).join('\n');
    const neu = old.replace('l5', 'L5').replace('l25', 'L25');
    const h = hunks(diffLines(old, neu), 2);
    expect(h).toHaveLength(2);
    expect(h[0].lines.map((l) => l.text)).toEqual(['l3', 'l4', 'l5', 'L5', 'l6', 'l7']);
  });
});
