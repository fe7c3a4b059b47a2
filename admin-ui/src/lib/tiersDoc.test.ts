import { describe, expect, it } from 'vitest';
// A document that sets every field tiers.schema.json names (the gateway's TiersSchemaTest checks it does).
import full from '../../../gateway/src/test/resources/tiers/full.yaml?raw';
import {
  addWindow,
  NUMBER_FIELDS,
  parse,
  parseDowngrade,
  parseModelLimits,
  parseSpend,
  pathName,
  problemsByField,
  readTier,
  rebase,
  removeWindow,
  scalarOf,
  setDowngrade,
  setEndpoints,
  setModelLimits,
  setSpend,
  setModels,
  setScalar,
  tierFieldPaths,
  TIER_FIELDS,
  tierNames,
  WINDOW_FIELDS,
} from './tiersDoc';

const DOC = `# top comment
tiers:
  free:
    tokens-per-minute: 10000   # per minute
    requests-per-minute: 60
    burst-allowance: 1.0
    priority: 3
    windows:
      - name: hour
        seconds: 3600
        tokens: 600000
        requests: 3600
    downgrade:
      gpt-4o: gpt-4o-mini
  pro:
    tokens-per-minute: 100000
    requests-per-minute: 600
    priority: 2
ladder:
  downgrade-above: 0.8
`;

describe('reading the document', () => {
  it('lists tiers and reads a tier into form values', () => {
    const doc = parse(DOC).doc!;
    expect(tierNames(doc)).toEqual(['free', 'pro']);
    const f = readTier(doc, 'free');
    expect(f['tokens-per-minute']).toBe('10000');
    expect(f['burst-allowance']).toBe('1');
    expect(f['default-max-tokens']).toBe('');
    expect(f.downgrade).toBe('gpt-4o: gpt-4o-mini');
    expect(f.windows).toEqual([{ name: 'hour', seconds: '3600', tokens: '600000', requests: '3600' }]);
  });

  it('reports a syntax error with its line', () => {
    const r = parse('tiers:\n  free: [\n');
    expect(r.doc).toBeNull();
    expect(r.errors[0].line).toBeGreaterThan(0);
  });
});

describe("the form's fields, from the gateway's tiers.schema.json", () => {
  const doc = parse(full).doc!;
  const tier = doc.toJS().tiers.t;
  const form = readTier(doc, 't');

  it('reads every field of a tier that sets them all', () => {
    expect(Object.keys(form).sort()).toEqual(['name', ...Object.keys(tier)].sort());
    for (const f of TIER_FIELDS.filter((f) => !['windows', 'downgrade', 'endpoints', 'models', 'model-limits', 'spend'].includes(f))) {
      expect(form[f as keyof typeof form], f).toBe(String(tier[f]));
    }
    expect(form.endpoints).toBe('chat, files');
    expect(form.downgrade).toBe('gpt-4o: gpt-4o-mini');
    expect(form.models).toBe('gpt-4o, gpt-4o-mini');
    expect(form['model-limits']).toBe('gpt-4o: 1, 1');
    expect(form.spend).toBe('usd-per-day: 1.5, usd-per-month: 20, time-zone: Europe/Paris');
    expect(WINDOW_FIELDS.map((f) => form.windows[0][f])).toEqual(WINDOW_FIELDS.map((f) => String(tier.windows[0][f])));
  });

  it('gives each number a box, and only numbers', () => {
    expect([...NUMBER_FIELDS].sort()).toEqual(Object.keys(tier).filter((f) => typeof tier[f] === 'number').sort());
  });

  it('places a problem at any field of the tier', () => {
    const paths = tierFieldPaths(form);
    for (const f of Object.keys(tier)) expect(paths).toContain(`tiers.t.${f}`);
    for (const f of Object.keys(tier.windows[0])) expect(paths).toContain(`tiers.t.windows[0].${f}`);
  });
});

describe('editing through the form', () => {
  it('changes one value and nothing else, comments and their alignment included', () => {
    const out = setScalar(DOC, ['tiers', 'free', 'tokens-per-minute'], '500');
    expect(out).toBe(DOC.replace('tokens-per-minute: 10000   # per minute', 'tokens-per-minute: 500   # per minute'));
    expect(out).toContain('# top comment');
    expect(parse(out).doc!.getIn(['tiers', 'free', 'tokens-per-minute'])).toBe(500);
  });

  it('keeps a wrong value as typed so the gateway names it', () => {
    const out = setScalar(DOC, ['tiers', 'free', 'tokens-per-minute'], 'ten');
    expect(parse(out).doc!.getIn(['tiers', 'free', 'tokens-per-minute'])).toBe('ten');
    // Text that YAML would read as something else is quoted, so it stays what was typed.
    const odd = setScalar(DOC, ['tiers', 'free', 'tokens-per-minute'], 'a # b');
    expect(parse(odd).doc!.getIn(['tiers', 'free', 'tokens-per-minute'])).toBe('a # b');
    const yes = setScalar(DOC, ['tiers', 'free', 'redis-down'], 'yes: no');
    expect(parse(yes).doc!.getIn(['tiers', 'free', 'redis-down'])).toBe('yes: no');
  });

  it('removes an optional field left blank, and adds a missing one', () => {
    expect(setScalar(DOC, ['tiers', 'free', 'priority'], ' ')).not.toMatch(/priority: 3/);
    const out = setScalar(DOC, ['tiers', 'pro', 'default-max-tokens'], '2048');
    expect(parse(out).doc!.getIn(['tiers', 'pro', 'default-max-tokens'])).toBe(2048);
  });

  it('turns form text into YAML scalars', () => {
    expect(scalarOf('1.5')).toBe(1.5);
    expect(scalarOf(' 42 ')).toBe(42);
    expect(scalarOf('true')).toBe(true);
    expect(scalarOf('fail-open')).toBe('fail-open');
    expect(scalarOf('1e3')).toBe(1000);
  });

  it('edits the downgrade map from its box', () => {
    expect(parseDowngrade('a: b\n\n c -> d ')).toEqual({ pairs: [['a', 'b'], ['c', 'd']], errors: [] });
    expect(parseDowngrade('nonsense').errors[0]).toMatch(/line 1/);
    const out = setDowngrade(DOC, 'free', 'gpt-4o: gpt-4o-mini\ngpt-4.1: gpt-4.1-mini');
    expect(parse(out).doc!.toJS().tiers.free.downgrade).toEqual({ 'gpt-4o': 'gpt-4o-mini', 'gpt-4.1': 'gpt-4.1-mini' });
    expect(parse(setDowngrade(DOC, 'free', '')).doc!.toJS().tiers.free.downgrade).toBeUndefined();
  });

  it('adds a day window after the hour, and removes windows', () => {
    const out = addWindow(DOC, 'free');
    expect(parse(out).doc!.toJS().tiers.free.windows[1]).toEqual({ name: 'day', seconds: 86400, tokens: 10000 * 1440, requests: 60 * 1440 });
    const pro = addWindow(DOC, 'pro');
    expect(parse(pro).doc!.toJS().tiers.pro.windows).toEqual([{ name: 'hour', seconds: 3600, tokens: 6_000_000, requests: 36_000 }]);
    expect(parse(removeWindow(DOC, 'free', 0)).doc!.toJS().tiers.free.windows).toBeUndefined();
  });
});

describe('the endpoints a tier opens', () => {
  it('reads the list, blank for the default', () => {
    const withList = setEndpoints(DOC, 'pro', 'chat, files');
    expect(readTier(parse(withList).doc!, 'pro').endpoints).toBe('chat, files');
    expect(readTier(parse(withList).doc!, 'free').endpoints).toBe('');
  });

  it('writes the box as a list and removes it when blank, keeping unknown names for the gateway to name', () => {
    const written = setEndpoints(DOC, 'pro', 'chat,  realtime\nnot-a-family');
    expect(parse(written).doc!.toJS().tiers.pro.endpoints).toEqual(['chat', 'realtime', 'not-a-family']);
    expect(written).toContain('endpoints: [ chat, realtime, not-a-family ]');
    expect(written).toContain('# top comment');
    const removed = setEndpoints(written, 'pro', '  ');
    expect(parse(removed).doc!.getIn(['tiers', 'pro', 'endpoints'])).toBeUndefined();
  });

  it('puts a problem with a listed family at the endpoints field', () => {
    const form = readTier(parse(setEndpoints(DOC, 'free', 'chat, organization')).doc!, 'free');
    const { byField } = problemsByField(
      [{ field: 'tiers.free.endpoints[1]', line: 15, message: "unknown endpoint family 'organization'" }],
      tierFieldPaths(form),
    );
    expect(byField.get('tiers.free.endpoints')).toHaveLength(1);
  });
});

describe('the models a tier may use, and its per-model windows', () => {
  it('reads and writes the models list, blank for every model', () => {
    const withList = setModels(DOC, 'pro', 'gpt-4o-mini,  gpt-4o\ngpt-4.1');
    expect(parse(withList).doc!.toJS().tiers.pro.models).toEqual(['gpt-4o-mini', 'gpt-4o', 'gpt-4.1']);
    expect(withList).toContain('# top comment');
    expect(readTier(parse(withList).doc!, 'pro').models).toBe('gpt-4o-mini, gpt-4o, gpt-4.1');
    expect(readTier(parse(withList).doc!, 'free').models).toBe('');
    const removed = setModels(withList, 'pro', ' ');
    expect(parse(removed).doc!.getIn(['tiers', 'pro', 'models'])).toBeUndefined();
  });

  it('reads and writes model-limits, one model a line, requests optional', () => {
    const written = setModelLimits(DOC, 'free', 'gpt-4o: 2000\n\ngpt-4o-mini: 9000, 30');
    expect(parse(written).doc!.toJS().tiers.free['model-limits']).toEqual({
      'gpt-4o': { 'tokens-per-minute': 2000 },
      'gpt-4o-mini': { 'tokens-per-minute': 9000, 'requests-per-minute': 30 },
    });
    expect(written).toContain('# top comment');
    expect(readTier(parse(written).doc!, 'free')['model-limits']).toBe('gpt-4o: 2000\ngpt-4o-mini: 9000, 30');
    const removed = setModelLimits(written, 'free', '');
    expect(parse(removed).doc!.getIn(['tiers', 'free', 'model-limits'])).toBeUndefined();
    expect(parseModelLimits('gpt-4o 2000').errors).toHaveLength(1);
    expect(setModelLimits(DOC, 'free', 'gpt-4o: ten').includes('tokens-per-minute: ten')).toBe(true);
  });

  it('keeps both through a round trip of the text, and puts their problems at their fields', () => {
    const doc = parse(full).doc!;
    const form = readTier(doc, 't');
    let text = setModels(full, 't', form.models);
    text = setModelLimits(text, 't', form['model-limits']);
    expect(parse(text).doc!.toJS()).toEqual(doc.toJS());
    const { byField } = problemsByField(
      [
        { field: 'tiers.t.models[1]', line: 22, message: 'names x twice' },
        { field: 'tiers.t.model-limits.gpt-4o.tokens-per-minute', line: 24, message: 'must be a positive whole number, got 0' },
      ],
      tierFieldPaths(form),
    );
    expect(byField.get('tiers.t.models')).toHaveLength(1);
    expect(byField.get('tiers.t.model-limits')).toHaveLength(1);
  });
});

describe("the tier's spend budgets", () => {
  it('reads and writes spend on one line, blank for none, and keeps full.yaml through a round trip', () => {
    const written = setSpend(DOC, 'free', 'usd-per-day: 1.00, usd-per-month: 20, time-zone: Europe/Paris');
    expect(parse(written).doc!.toJS().tiers.free.spend).toEqual({ 'usd-per-day': 1, 'usd-per-month': 20, 'time-zone': 'Europe/Paris' });
    expect(written).toContain('# top comment');
    expect(readTier(parse(written).doc!, 'free').spend).toBe('usd-per-day: 1, usd-per-month: 20, time-zone: Europe/Paris');
    expect(parse(setSpend(written, 'free', ' ')).doc!.getIn(['tiers', 'free', 'spend'])).toBeUndefined();
    expect(parseSpend('usd-per-day 1').errors).toHaveLength(1);

    const doc = parse(full).doc!;
    const text = setSpend(full, 't', readTier(doc, 't').spend);
    expect(parse(text).doc!.toJS()).toEqual(doc.toJS());
    const { byField } = problemsByField(
      [{ field: 'tiers.t.spend.time-zone', line: 26, message: "unknown time zone 'Mars/Olympus_Mons'" }],
      tierFieldPaths(readTier(doc, 't')),
    );
    expect(byField.get('tiers.t.spend')).toHaveLength(1);
  });
});

describe('problems at their field', () => {
  const fields = tierFieldPaths(readTier(parse(DOC).doc!, 'free'));

  it('names paths like the gateway', () => {
    expect(pathName(['tiers', 'free', 'windows', 0, 'tokens'])).toBe('tiers.free.windows[0].tokens');
    expect(fields).toContain('tiers.free.windows[0].tokens');
  });

  it('puts each problem at the most specific field, the rest apart', () => {
    const { byField, rest } = problemsByField(
      [
        { field: 'tiers.free.tokens-per-minute', line: 4, message: 'must be a positive whole number' },
        { field: 'tiers.free.windows[0].tokens', line: 11, message: 'must be at least tokens-per-minute' },
        { field: 'tiers.free.downgrade.gpt-4o', line: 14, message: 'downgrades a model to itself' },
        { field: 'tiers.free.colour', line: 9, message: 'unknown field' },
        { field: 'ladder.delay-max-ms', line: 20, message: 'must be at least delay-min-ms' },
      ],
      fields,
    );
    expect(byField.get('tiers.free.tokens-per-minute')?.[0].line).toBe(4);
    expect(byField.get('tiers.free.windows[0].tokens')).toHaveLength(1);
    expect(byField.get('tiers.free.downgrade')).toHaveLength(1);
    expect(byField.get('tiers.free')?.[0].field).toBe('tiers.free.colour');
    expect(rest.map((p) => p.field)).toEqual(['ladder.delay-max-ms']);
  });
});

describe('someone else saved first', () => {
  const theirs = DOC.replace('requests-per-minute: 600', 'requests-per-minute: 900').replace('downgrade-above: 0.8', 'downgrade-above: 0.7');

  it('re-applies my edits on their version and keeps theirs', () => {
    const mine = setScalar(DOC, ['tiers', 'free', 'tokens-per-minute'], '5000');
    const r = rebase(DOC, mine, theirs)!;
    const merged = parse(r.text).doc!.toJS();
    expect(merged.tiers.free['tokens-per-minute']).toBe(5000);
    expect(merged.tiers.pro['requests-per-minute']).toBe(900);
    expect(merged.ladder['downgrade-above']).toBe(0.7);
    expect(r.conflicts).toEqual([]);
    expect(r.mine).toEqual(['tiers.free.tokens-per-minute']);
    // Their text with my one value spliced in: nothing else moves.
    expect(r.text).toBe(theirs.replace('tokens-per-minute: 10000   # per minute', 'tokens-per-minute: 5000   # per minute'));
  });

  it('names a field both changed differently; mine is applied', () => {
    const mine = setScalar(DOC, ['ladder', 'downgrade-above'], '0.9');
    const r = rebase(DOC, mine, theirs)!;
    expect(r.conflicts).toEqual([{ field: 'ladder.downgrade-above', base: 0.8, theirs: 0.7, mine: 0.9 }]);
    expect(parse(r.text).doc!.toJS().ladder['downgrade-above']).toBe(0.9);
  });

  it('carries removals and additions, and agrees silently on the same change', () => {
    const mine = setScalar(setScalar(DOC, ['tiers', 'free', 'priority'], ''), ['tiers', 'pro', 'requests-per-minute'], '900');
    const r = rebase(DOC, mine, theirs)!;
    expect(parse(r.text).doc!.toJS().tiers.free.priority).toBeUndefined();
    expect(r.conflicts).toEqual([]);
  });

  it('gives up (null) when a text does not parse', () => {
    expect(rebase(DOC, 'tiers: [', theirs)).toBeNull();
  });
});
