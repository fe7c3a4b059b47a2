import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { EvidenceChart, LimitPanel, secondsOver, Sparkline, TimelineChart } from './Charts';
import type { TimelinePoint } from '../lib/lab';
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

  const point = (second: number, tokensInWindow: number, inFlight: number, providerErrors = 0): TimelinePoint => (
    { second, admittedTokens: 0, tokensInWindow, inFlight, providerErrors, refusals: 0 });

  it('a lab panel draws its limit line at the limit value', () => {
    const timeline = [point(0, 0, 0), point(1, 150_000, 10)];
    const html = renderToStaticMarkup(
      <LimitPanel series={{ what: 'tokens', limitName: 'TPM', limit: 300_000, values: [0, 150_000] }} timeline={timeline} title="t" width={212} height={136} />,
    );
    // Plot 148 px wide, 100 px tall; the axis tops at 110% of the limit, so the limit sits at 100 - 100 / 1.1.
    const y = 100 - 100 / 1.1;
    const limit = html.match(/<line x1="0" x2="148" y1="([\d.]+)" y2="([\d.]+)" class="limit" data-limit="300000"/);
    expect(limit).not.toBeNull();
    expect(Number(limit![1])).toBeCloseTo(y, 5);
    expect(html).toContain('TPM 300k');
    expect(html).toContain('at most 150k (50%); never above the limit');
  });

  it('a lab panel marks the seconds above the limit, and only those', () => {
    const values = [250_000, 300_000, 320_000, 310_000, 200_000];
    expect(secondsOver(values, 300_000)).toEqual([2, 3]); // at the limit is what the provider allows
    const timeline = values.map((v, i) => point(i, v, 0, i === 2 ? 4 : 0));
    const html = renderToStaticMarkup(
      <LimitPanel series={{ what: 'tokens in the window', limitName: 'TPM', limit: 300_000, values }} timeline={timeline} title="case4" />,
    );
    expect((html.match(/class="over"/g) ?? []).length).toBe(2);
    expect(html).toContain('second 2: 320k tokens in the window, 107% of the limit');
    expect(html).toContain('above the limit in 2 seconds, first at 2 s; provider errors in 1 second');
    expect((html.match(/class="err-tick"/g) ?? []).length).toBe(1);
  });

  it('a lab timeline is two panels: the token window against TPM, calls in flight against the cap', () => {
    const timeline = [point(0, 300_000, 200), point(1, 300_000, 201)];
    const html = renderToStaticMarkup(<TimelineChart timeline={timeline} tokensPerMinute={300_000} inFlightLimit={200} title="case2" />);
    expect((html.match(/<svg /g) ?? []).length).toBe(2);
    expect(html).toContain('data-limit="300000"');
    expect(html).toContain('data-limit="200"');
    expect(html).toContain('case2, tokens: tokens in the provider&#x27;s trailing 60 s over 2 s against the TPM limit of 300k; at most 300k (100%); never above');
    expect(html).toContain('case2, calls in flight: calls in flight at the provider over 2 s against the in flight limit of 200; at most 201 (101%); above the limit in 1 second, first at 1 s');
  });

  it('a diff shows old and new lines', () => {
    const html = renderToStaticMarkup(<DiffView oldText={'a: 1\nb: 2\n'} newText={'a: 1\nb: 3\n'} oldLabel="saved" newLabel="yours" />);
    expect(html).toContain('class="dl removed"');
    expect(html).toContain('class="dl added"');
    expect(html).toContain('1 line removed, 1 added');
    expect(renderToStaticMarkup(<DiffView oldText="a" newText="a" oldLabel="x" newLabel="y" />)).toContain('No differences');
  });
});
