import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { bottleneck, budgetModel, providerState, waitEstimateKpi, type BudgetView, type Overview, type ProviderView } from '../lib/overview';
import { ProvidersTable } from './Overview';

function budget(b: Partial<BudgetView> & { budget: string }): BudgetView {
  const [provider, model] = [b.budget.slice(0, b.budget.indexOf(':')), b.budget.slice(b.budget.indexOf(':') + 1)];
  return {
    provider,
    model,
    utilisation: { tokens: 0, requests: 0 },
    inFlight: 0,
    concurrencyLimit: 10,
    maxInFlight: 10,
    queueDepth: 0,
    pausedForMs: 0,
    queueWaitP95Ms: { lastMinute: null, sinceStart: null },
    pricePerMillionTokens: 1,
    tokenRatio: 1,
    ...b,
  };
}

// Two providers as the gateway reports them: a small primary, paused by its own 429, and a secondary taking most calls.
const providers: ProviderView[] = [
  {
    name: 'primary',
    host: 'api.openai.com',
    state: 'paused',
    circuit: 'closed',
    pausedForMs: 4_200,
    shareLastMinute: 0.25,
    answers: { lastMinute: { '200': 30, '429': 2 }, sinceStart: { '200': 300, '429': 2 } },
    retries: { lastMinute: { '429': 2, failover: 0 }, sinceStart: { '429': 2, failover: 0 } },
    budgets: [
      budget({ budget: 'primary:gpt-4o-mini', utilisation: { tokens: 0.97, requests: 0.31 }, inFlight: 4, concurrencyLimit: 7, pausedForMs: 4_200 }),
      budget({ budget: 'primary:*', utilisation: { tokens: 0.05, requests: 0.012 } }),
    ],
  },
  {
    name: 'secondary',
    host: 'built-in simulator',
    state: 'healthy',
    circuit: 'closed',
    pausedForMs: 0,
    shareLastMinute: 0.75,
    answers: { lastMinute: { '200': 90 }, sinceStart: { '200': 90 } },
    retries: { lastMinute: {}, sinceStart: {} },
    budgets: [budget({ budget: 'secondary:*', utilisation: { tokens: 0.4, requests: 0.2 }, inFlight: 12, concurrencyLimit: 194 })],
  },
  {
    name: 'spare',
    host: 'groq.example.com',
    state: 'failing',
    circuit: 'open',
    pausedForMs: 0,
    shareLastMinute: null,
    answers: { lastMinute: { '200': 0 }, sinceStart: { '200': 0 } },
    retries: { lastMinute: { failover: 5 }, sinceStart: { failover: 5 } },
    budgets: [],
  },
];

/** The text of each body row's cells, in order. */
function rows(html: string): string[][] {
  const body = html.slice(html.indexOf('<tbody>'));
  return [...body.matchAll(/<tr[^>]*>(.*?)<\/tr>/g)].map((r) =>
    [...r[1].matchAll(/<t[hd][^>]*>(.*?)<\/t[hd]>/g)].map((c) => c[1].replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim()),
  );
}

describe('the providers table', () => {
  const html = renderToStaticMarkup(<ProvidersTable providers={providers} span="last minute" />);

  it('has a row per provider, in the order of the tiers document, with its host and never more of its address', () => {
    const r = rows(html);
    expect(r.map((c) => c[0])).toEqual(['primary api.openai.com', 'secondary built-in simulator', 'spare groq.example.com']);
    expect(html).toContain('aria-label="Provider primary"');
  });

  it('says whether each takes calls: healthy, paused for how long, failing, probing', () => {
    expect(rows(html).map((c) => c[1])).toEqual(['paused 5 s', 'healthy', 'failing: skipped']);
    expect(html).toContain('<span class="badge warn">paused 5 s</span>');
    expect(html).toContain('<span class="badge bad">failing: skipped</span>');
    expect(providerState({ state: 'probing', pausedForMs: 0 })).toEqual({ text: 'probing', kind: 'warn' });
    expect(providerState({ state: 'paused', pausedForMs: 200 }).text).toBe('paused 1 s');
  });

  it('shows each share of the traffic, its answers and the calls that failed over from it', () => {
    expect(rows(html).map((c) => c[2])).toEqual(['25% 32 answers', '75% 90 answers', '– 0 answers, 5 failed over']);
    expect(html).toContain('Share of traffic, last minute');
  });

  it("shows the token and request use of each provider's budgets, naming the model where it has several", () => {
    const [primary, secondary, spare] = rows(html);
    expect(primary[3]).toBe('gpt-4o-mini: 97% any other model: 5.0%');
    expect(primary[4]).toBe('gpt-4o-mini: 31% any other model: 1.2%');
    expect(primary[5]).toBe('gpt-4o-mini: 4 / 7 any other model: 0 / 10');
    expect(secondary.slice(3)).toEqual(['40%', '20%', '12 / 194']);
    expect(spare.slice(3)).toEqual(['no call yet', 'no call yet', 'no call yet']);
  });

  it('is left out when the gateway lists no provider (a gateway older than the list)', () => {
    expect(renderToStaticMarkup(<ProvidersTable providers={[]} span="last minute" />)).toBe('');
  });
});

describe('the overview notice', () => {
  it('names a failing provider before any budget', () => {
    const o = { providers, budgets: [] } as unknown as Overview;
    expect(bottleneck(o)).toBe('The provider spare is failing: it is skipped, and its models go to the next provider on their route.');
    expect(bottleneck({ ...o, providers: providers.slice(0, 2) })).toBeNull();
  });

  it('reads a budget key whose model the gateway did not split', () => {
    expect(budgetModel({ model: null, budget: 'primary:ft:gpt-4o-mini:acme' })).toBe('ft:gpt-4o-mini:acme');
    expect(budgetModel({ model: '*', budget: 'primary:*' })).toBe('any other model');
  });
});

describe('waitEstimateKpi', () => {
  it('shows the ratio of actual to estimated wait, p50 and p95', () => {
    expect(waitEstimateKpi({ waitEstimate: { p50: 0.97, p95: 1.18, samples: 1200 } })).toEqual({
      value: '×0.97 / ×1.18',
      note: "actual wait ÷ the door's estimate, 1200 requests",
    });
  });
  it('says so when nothing has waited, or the gateway sends no estimate', () => {
    expect(waitEstimateKpi({ waitEstimate: { p50: null, p95: null, samples: 0 } }).value).toBe('–');
    expect(waitEstimateKpi({}).note).toBe('no request has waited yet');
  });
});
