import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { EvidenceChart, Sparkline } from './Charts';
import { DiffView } from './DiffView';

describe('charts as rendered', () => {
  const from = Date.parse('2026-11-30T04:00:00Z');
  const to = from + 6 * 3_600_000;

  it('a flat-lined tenant is drawn as high and described so', () => {
    const flat = Array.from({ length: 360 }, (_, i) => ({ t: from + i * 60_000, v: 0.96 }));
    const html = renderToStaticMarkup(<Sparkline points={flat} fromMs={from} toMs={to} threshold={0.9} label="acme" />);
    expect(html).toContain('class="sparkline high"');
    expect(html).toContain('flat at the ceiling');
  });

  it('a bursty tenant is not', () => {
    const bursty = Array.from({ length: 360 }, (_, i) => ({ t: from + i * 60_000, v: i % 60 < 10 ? 0.9 : 0 })).filter((p) => p.v > 0);
    const html = renderToStaticMarkup(<Sparkline points={bursty} fromMs={from} toMs={to} threshold={0.9} label="acme" />);
    expect(html).toContain('class="sparkline"');
    expect(html).toMatch(/active in \d+% of the period/);
  });

  it('evidence marks minutes at the threshold and says how long the run was', () => {
    const pts = Array.from({ length: 20 }, (_, i) => ({ minute: new Date(from + i * 60_000).toISOString(), utilisation: i < 5 ? 0.3 : 0.95, tokens: 1, window: 'minute' }));
    const html = renderToStaticMarkup(<EvidenceChart points={pts} threshold={0.9} runStart={pts[5].minute} runMinutes={15} label="acme" />);
    expect((html.match(/class="bar high"/g) ?? []).length).toBe(15);
    expect(html).toContain('the run that raised the flag lasted 15 minutes');
    expect(renderToStaticMarkup(<EvidenceChart points={[]} threshold={0.9} runStart="" runMinutes={0} label="x" />)).toContain('No evidence');
  });

  it('evidence plots the ceiling signal, not the snapshot, and says why each minute counted', () => {
    // issue 18: pinned to its ceiling, the window read 0.889 as some minutes ended; those minutes were refused
    const pts = Array.from({ length: 15 }, (_, i) => ({
      minute: new Date(from + i * 60_000).toISOString(), utilisation: i % 3 === 0 ? 0.889 : 0.97, tokens: 8_888, window: 'minute',
      pressure: 1,
      ceiling: { window: 'minute', reason: i % 2 ? ('refused' as const) : ('room' as const), fill: 0.93, peak: 0.97, roomTokens: 304, typicalTokens: 808, refused: i % 2, held: 0 },
    }));
    const html = renderToStaticMarkup(<EvidenceChart points={pts} threshold={0.9} runStart={pts[0].minute} runMinutes={15} label="acme" />);
    expect((html.match(/class="bar high"/g) ?? []).length).toBe(15);
    expect(html).toContain('refused 1 request (429)');
    expect(html).toContain('room left 304 tokens, under a typical request of 808');
    expect(html).toContain('minute window 93% full on average, 97% at most');
  });

  it('a diff shows old and new lines', () => {
    const html = renderToStaticMarkup(<DiffView oldText={'a: 1\nb: 2\n'} newText={'a: 1\nb: 3\n'} oldLabel="saved" newLabel="yours" />);
    expect(html).toContain('class="dl removed"');
    expect(html).toContain('class="dl added"');
    expect(html).toContain('1 line removed, 1 added');
    expect(renderToStaticMarkup(<DiffView oldText="a" newText="a" oldLabel="x" newLabel="y" />)).toContain('No differences');
  });
});
