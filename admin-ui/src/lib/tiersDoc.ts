// The tiers document as the form sees it. Edits go through the `yaml` library's Document API,
// so the operator's comments and layout survive a form edit, and the YAML view and the form
// are two views of one text: the text is the state, the form reads from and writes to it.
import { Document, isMap, isSeq, isScalar, parseDocument, YAMLMap } from 'yaml';
import schema from '../../../gateway/src/main/resources/tiers.schema.json';
import type { FieldProblem } from './api';

export type Path = (string | number)[];

export interface ParseResult {
  doc: Document | null;
  /** YAML syntax errors, with their line: the form cannot be shown until the text parses. */
  errors: FieldProblem[];
}

export function parse(text: string): ParseResult {
  const doc = parseDocument(text, { keepSourceTokens: false, prettyErrors: true });
  if (doc.errors.length > 0) {
    return {
      doc: null,
      errors: doc.errors.map((e) => ({ field: '(yaml)', line: e.linePos?.[0]?.line, message: e.message.split('\n')[0] })),
    };
  }
  return { doc, errors: [] };
}

/** A path as the gateway names fields: `tiers.free.windows[0].tokens`. */
export function pathName(path: Path): string {
  let s = '';
  for (const p of path) s += typeof p === 'number' ? `[${p}]` : s === '' ? p : `.${p}`;
  return s;
}

export function tierNames(doc: Document): string[] {
  const tiers = doc.get('tiers');
  if (!isMap(tiers)) return [];
  return tiers.items.map((p) => String(isScalar(p.key) ? p.key.value : p.key));
}

// A tier's fields are those of the gateway's tiers.schema.json, the one list of them (its parser
// reads it too): the form's fields, their order and the paths problems are placed at follow it.
const TIER = schema.$defs.tier.properties;
const WINDOW = schema.$defs.window.properties;
export type TierField = keyof typeof TIER;
export type WindowField = keyof typeof WINDOW;
/** Every field but the windows, which the form edits one row each. */
export type TierValueField = Exclude<TierField, 'windows'>;
export const TIER_FIELDS = Object.keys(TIER) as TierField[];
/** The tier's numbers, in the schema's order: a text box each. */
export const NUMBER_FIELDS = TIER_FIELDS.filter((f): f is TierValueField => TIER[f].type === 'integer' || TIER[f].type === 'number');
export const WINDOW_FIELDS = Object.keys(WINDOW) as WindowField[];

export type WindowForm = Record<WindowField, string>;

/**
 * A tier as the form holds it: each field as its text, except `endpoints` and `models`, the names
 * comma-separated (blank: the default, every family or model), `downgrade`, one `from: to` per
 * line, `model-limits`, one `model: tokens-per-minute[, requests-per-minute]` per line, `spend`, its
 * fields as `usd-per-day: 1.00, usd-per-month: 20, time-zone: UTC` on one line, and the windows.
 */
export type TierForm = { name: string; windows: WindowForm[] } & Record<TierValueField, string>;

function text(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (isScalar(v)) return text(v.value);
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

export function readTier(doc: Document, name: string): TierForm {
  const t = doc.getIn(['tiers', name]);
  const get = (k: string) => (isMap(t) ? text(t.get(k, true)) : '');
  const downgrade = isMap(t) ? t.get('downgrade') : null;
  const windows = isMap(t) ? t.get('windows') : null;
  const endpoints = isMap(t) ? t.get('endpoints') : null;
  const models = isMap(t) ? t.get('models') : null;
  const modelLimits = isMap(t) ? t.get('model-limits') : null;
  const spend = isMap(t) ? t.get('spend') : null;
  const values = Object.fromEntries(TIER_FIELDS.filter((f) => f !== 'windows').map((f) => [f, get(f)])) as Record<TierValueField, string>;
  return {
    ...values,
    name,
    endpoints: isSeq(endpoints) ? endpoints.items.map((e) => text(e)).join(', ') : get('endpoints'),
    models: isSeq(models) ? models.items.map((e) => text(e)).join(', ') : get('models'),
    'model-limits': isMap(modelLimits)
      ? modelLimits.items
          .map((p) => {
            const l = p.value;
            if (!isMap(l)) return `${text(p.key)}: ${text(l)}`;
            const r = text(l.get('requests-per-minute', true));
            return `${text(p.key)}: ${text(l.get('tokens-per-minute', true))}${r === '' ? '' : `, ${r}`}`;
          })
          .join('\n')
      : '',
    spend: isMap(spend) ? spend.items.map((p) => `${text(p.key)}: ${text(p.value)}`).join(', ') : get('spend'),
    downgrade: isMap(downgrade)
      ? downgrade.items.map((p) => `${text(p.key)}: ${text(p.value)}`).join('\n')
      : '',
    windows: isSeq(windows)
      ? windows.items.map((w) => Object.fromEntries(WINDOW_FIELDS.map((f) => [f, isMap(w) ? text(w.get(f, true)) : ''])) as WindowForm)
      : [],
  };
}

/**
 * What a form input becomes in YAML: a number when it reads as one, true/false, or the text
 * itself. A wrong value ("ten") is kept as typed: the gateway's validation names it at its
 * field, which is better than the form silently refusing a key press.
 */
export function scalarOf(raw: string): string | number | boolean {
  const s = raw.trim();
  if (/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(s)) return Number(s);
  if (s === 'true') return true;
  if (s === 'false') return false;
  return s;
}

/** Sets (or, when blank, removes) one scalar at `path`; returns the new text. */
export function setScalar(yamlText: string, path: Path, raw: string): string {
  if (raw.trim() === '') {
    const { doc } = parse(yamlText);
    if (!doc) return yamlText;
    doc.deleteIn(path);
    return doc.toString();
  }
  return setValue(yamlText, path, scalarOf(raw));
}

/** How a scalar is written in the text: plain where YAML reads it back the same, quoted otherwise. */
function scalarText(v: string | number | boolean): string {
  if (typeof v !== 'string') return String(v);
  const plain = parseDocument(`k: ${v}`).toJS()?.k;
  return plain === v && !v.includes('#') && !v.includes(': ') ? v : JSON.stringify(v);
}

/**
 * Sets the value at `path`. When it replaces a scalar already in the text, only that
 * scalar's characters change, so the operator's layout and comment alignment stay exactly as
 * they were and the diff before saving shows the edit alone. Anything structural (a new key,
 * a list) goes through the Document, which keeps comments but may re-indent them.
 */
export function setValue(yamlText: string, path: Path, value: unknown): string {
  const { doc } = parse(yamlText);
  if (!doc) return yamlText;
  const node = doc.getIn(path, true);
  const simple = value === null || ['string', 'number', 'boolean'].includes(typeof value);
  if (isScalar(node) && simple && node.range && value !== null) {
    const [start, end] = node.range;
    const replaced = yamlText.slice(0, start) + scalarText(value as string | number | boolean) + yamlText.slice(end);
    const check = parse(replaced).doc;
    if (check && JSON.stringify(check.getIn(path)) === JSON.stringify(value)) return replaced;
  }
  if (isScalar(node) && simple) node.value = value;
  else doc.setIn(path, value);
  return doc.toString();
}

/** Parses the downgrade box: `from: to` (or `from -> to`) per line; blank lines ignored. */
export function parseDowngrade(box: string): { pairs: [string, string][]; errors: string[] } {
  const pairs: [string, string][] = [];
  const errors: string[] = [];
  box.split('\n').forEach((line, i) => {
    const l = line.trim();
    if (l === '') return;
    const m = /^(.+?)\s*(?::|->|→)\s*(.*)$/.exec(l);
    if (!m || m[1].trim() === '') {
      errors.push(`line ${i + 1}: write "model: cheaper-model", got "${l}"`);
      return;
    }
    pairs.push([m[1].trim(), m[2].trim()]);
  });
  return { pairs, errors };
}

export function setDowngrade(yamlText: string, tier: string, box: string): string {
  const { doc } = parse(yamlText);
  if (!doc) return yamlText;
  const { pairs } = parseDowngrade(box);
  const path = ['tiers', tier, 'downgrade'];
  if (pairs.length === 0) {
    doc.deleteIn(path);
  } else {
    const map = new YAMLMap();
    for (const [from, to] of pairs) map.set(doc.createNode(from), doc.createNode(to));
    const old = doc.getIn(path, true);
    if (isMap(old)) old.items = map.items;
    else doc.setIn(path, map);
  }
  return doc.toString();
}

/**
 * Writes the endpoints box (`chat, files` or one per line) as the tier's list, or removes the
 * field when blank (the default). A name the gateway does not know is kept: it names the problem.
 */
export function setEndpoints(yamlText: string, tier: string, box: string): string {
  const { doc } = parse(yamlText);
  if (!doc) return yamlText;
  const names = box.split(/[\s,]+/).map((n) => n.trim()).filter((n) => n !== '');
  const path = ['tiers', tier, 'endpoints'];
  if (names.length === 0) {
    doc.deleteIn(path);
  } else {
    const seq = doc.createNode(names);
    seq.flow = true;
    doc.setIn(path, seq);
  }
  return doc.toString();
}

/**
 * Writes the models box (`gpt-4o-mini, gpt-4o` or one per line) as the tier's list, or removes the
 * field when blank (every model open). Names are kept as typed: the gateway names any problem.
 */
export function setModels(yamlText: string, tier: string, box: string): string {
  const { doc } = parse(yamlText);
  if (!doc) return yamlText;
  const names = box.split(/[\s,]+/).map((n) => n.trim()).filter((n) => n !== '');
  const path = ['tiers', tier, 'models'];
  if (names.length === 0) {
    doc.deleteIn(path);
  } else {
    const seq = doc.createNode(names);
    seq.flow = true;
    doc.setIn(path, seq);
  }
  return doc.toString();
}

export interface ModelLimitLine {
  model: string;
  tokens: string;
  requests: string;
}

/** Parses the model-limits box: `model: tokens-per-minute[, requests-per-minute]` per line; blank lines ignored. */
export function parseModelLimits(box: string): { limits: ModelLimitLine[]; errors: string[] } {
  const limits: ModelLimitLine[] = [];
  const errors: string[] = [];
  box.split('\n').forEach((line, i) => {
    const l = line.trim();
    if (l === '') return;
    const m = /^(.+?)\s*:\s*([^,]+?)\s*(?:,\s*(.+))?$/.exec(l);
    if (!m || m[1].trim() === '') {
      errors.push(`line ${i + 1}: write "model: tokens-per-minute" or "model: tokens-per-minute, requests-per-minute", got "${l}"`);
      return;
    }
    limits.push({ model: m[1].trim(), tokens: m[2].trim(), requests: (m[3] ?? '').trim() });
  });
  return { limits, errors };
}

/** Writes the model-limits box as the tier's map (each model's limits in flow style), or removes it when blank. */
export function setModelLimits(yamlText: string, tier: string, box: string): string {
  const { doc } = parse(yamlText);
  if (!doc) return yamlText;
  const { limits } = parseModelLimits(box);
  const path = ['tiers', tier, 'model-limits'];
  if (limits.length === 0) {
    doc.deleteIn(path);
  } else {
    const map = new YAMLMap();
    for (const { model, tokens, requests } of limits) {
      const value: Record<string, string | number | boolean> = { 'tokens-per-minute': scalarOf(tokens) };
      if (requests !== '') value['requests-per-minute'] = scalarOf(requests);
      const node = doc.createNode(value);
      node.flow = true;
      map.set(doc.createNode(model), node);
    }
    const old = doc.getIn(path, true);
    if (isMap(old)) old.items = map.items;
    else doc.setIn(path, map);
  }
  return doc.toString();
}

/** Parses the spend box: `field: value` pairs separated by commas (or lines); blank: none. */
export function parseSpend(box: string): { pairs: [string, string][]; errors: string[] } {
  const pairs: [string, string][] = [];
  const errors: string[] = [];
  box.split(/[,\n]/).forEach((part) => {
    const p = part.trim();
    if (p === '') return;
    const m = /^([^:]+?)\s*:\s*(.+)$/.exec(p);
    if (!m) errors.push(`write "usd-per-day: 1.00, usd-per-month: 20, time-zone: UTC", got "${p}"`);
    else pairs.push([m[1].trim(), m[2].trim()]);
  });
  return { pairs, errors };
}

/** Writes the spend box as the tier's spend map (flow style), or removes it when blank; unknown fields are kept for the gateway to name. */
export function setSpend(yamlText: string, tier: string, box: string): string {
  const { doc } = parse(yamlText);
  if (!doc) return yamlText;
  const { pairs } = parseSpend(box);
  const path = ['tiers', tier, 'spend'];
  if (pairs.length === 0) {
    doc.deleteIn(path);
    return doc.toString();
  }
  const value: Record<string, string | number | boolean> = {};
  for (const [k, v] of pairs) value[k] = k === 'time-zone' ? v : scalarOf(v);
  const node = doc.createNode(value) as YAMLMap;
  const old = doc.getIn(path, true);
  if (isMap(old)) old.items = node.items;
  else {
    node.flow = true;
    doc.setIn(path, node);
  }
  return doc.toString();
}

export function addWindow(yamlText: string, tier: string): string {
  const { doc } = parse(yamlText);
  if (!doc) return yamlText;
  const path = ['tiers', tier, 'windows'];
  const tpm = Number(text(doc.getIn(['tiers', tier, 'tokens-per-minute'])) || 0);
  const rpm = Number(text(doc.getIn(['tiers', tier, 'requests-per-minute'])) || 0);
  const existing = doc.getIn(path, true);
  const names = isSeq(existing) ? existing.items.map((w) => (isMap(w) ? text(w.get('name', true)) : '')) : [];
  const name = names.includes('hour') ? (names.includes('day') ? `window-${names.length + 1}` : 'day') : 'hour';
  const seconds = name === 'hour' ? 3600 : 86400;
  const w = { name, seconds, tokens: tpm * (seconds / 60), requests: rpm * (seconds / 60) };
  if (isSeq(existing)) existing.items.push(doc.createNode(w));
  else doc.setIn(path, doc.createNode([w]));
  return doc.toString();
}

export function removeWindow(yamlText: string, tier: string, index: number): string {
  const { doc } = parse(yamlText);
  if (!doc) return yamlText;
  const path = ['tiers', tier, 'windows'];
  doc.deleteIn([...path, index]);
  const left = doc.getIn(path, true);
  if (isSeq(left) && left.items.length === 0) doc.deleteIn(path);
  return doc.toString();
}

// ---- problems at their field -------------------------------------------------------------

/**
 * Puts each of the gateway's problems at the form field it names. A problem belongs to the
 * longest known field path that is its prefix (`tiers.free.downgrade.gpt-4o` → the downgrade
 * box); one that matches no field stays with the tier (`tiers.free.foo`), or is global.
 */
export function problemsByField(problems: FieldProblem[], fields: string[]): { byField: Map<string, FieldProblem[]>; rest: FieldProblem[] } {
  const byField = new Map<string, FieldProblem[]>();
  const rest: FieldProblem[] = [];
  const sorted = [...fields].sort((a, b) => b.length - a.length);
  for (const p of problems) {
    const f = sorted.find((k) => p.field === k || p.field.startsWith(k + '.') || p.field.startsWith(k + '['));
    if (f) {
      const list = byField.get(f) ?? [];
      list.push(p);
      byField.set(f, list);
    } else {
      rest.push(p);
    }
  }
  return { byField, rest };
}

/** Every form field path of a tier, as the gateway names them. */
export function tierFieldPaths(form: TierForm): string[] {
  const base = `tiers.${form.name}`;
  const out = [base, ...TIER_FIELDS.map((f) => `${base}.${f}`)];
  form.windows.forEach((_, i) => WINDOW_FIELDS.forEach((f) => out.push(`${base}.windows[${i}].${f}`)));
  return out;
}

// ---- someone else saved first: re-apply my edits on their version ------------------------

type Leaves = Map<string, { path: Path; value: unknown }>;

/** Leaf values by path; lists count as one value (a window list is edited as a whole). */
export function leaves(value: unknown, path: Path = [], out: Leaves = new Map()): Leaves {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0 && path.length > 0) out.set(JSON.stringify(path), { path, value });
    for (const [k, v] of entries) leaves(v, [...path, k], out);
  } else {
    out.set(JSON.stringify(path), { path, value });
  }
  return out;
}

export interface Conflict {
  field: string;
  base: unknown;
  theirs: unknown;
  mine: unknown;
}

export interface Rebase {
  /** Their text with my edits applied where I made them. */
  text: string;
  /** Fields both of us changed to different values; mine is applied, theirs is shown. */
  conflicts: Conflict[];
  /** Fields I changed (re-applied). */
  mine: string[];
}

/**
 * A three-way merge over the documents' values: what I changed relative to the version I
 * read (base) is applied onto theirs; what they changed and I did not stays theirs. Only
 * when both changed one field differently is it a conflict, and then my value is applied
 * and both are shown, so nothing typed is lost and nothing of theirs is dropped unseen.
 * Needs all three to parse (a draft that does not parse is offered as text instead).
 */
export function rebase(baseText: string, mineText: string, theirsText: string): Rebase | null {
  const b = parse(baseText).doc;
  const m = parse(mineText).doc;
  const t = parse(theirsText).doc;
  if (!b || !m || !t) return null;
  const base = leaves(b.toJS());
  const mine = leaves(m.toJS());
  const theirs = leaves(t.toJS());
  const same = (x: unknown, y: unknown) => JSON.stringify(x) === JSON.stringify(y);
  const changed: string[] = [];
  const conflicts: Conflict[] = [];
  const keys = new Set([...base.keys(), ...mine.keys()]);
  let text = theirsText;
  for (const k of keys) {
    const bv = base.get(k);
    const mv = mine.get(k);
    if (bv && mv && same(bv.value, mv.value)) continue;
    const path = (mv ?? bv)!.path;
    const tv = theirs.get(k);
    const field = pathName(path);
    changed.push(field);
    const theyChanged = !(bv && tv ? same(bv.value, tv.value) : !bv && !tv);
    const agree = mv && tv ? same(mv.value, tv.value) : !mv && !tv;
    if (theyChanged && !agree) conflicts.push({ field, base: bv?.value, theirs: tv?.value, mine: mv?.value });
    if (mv) text = setValue(text, path, mv.value);
    else {
      const d = parse(text).doc!;
      d.deleteIn(path);
      text = d.toString();
    }
  }
  return { text, conflicts, mine: changed };
}
