import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { CopyButton } from '../components/CopyButton';
import { DiffView } from '../components/DiffView';
import { FieldError, fieldErrorId } from '../components/FieldError';
import { ErrorNotice, Loading, Notice, ProblemList } from '../components/States';
import { ApiError, type FieldProblem } from '../lib/api';
import type { components } from '../lib/api-types';
import { formatTime, relativeTime } from '../lib/format';
import {
  addWindow,
  NUMBER_FIELDS,
  parse,
  parseDowngrade,
  parseModelLimits,
  problemsByField,
  readTier,
  rebase,
  removeWindow,
  setDowngrade,
  setEndpoints,
  setModelLimits,
  setModels,
  setSpend,
  setScalar,
  tierFieldPaths,
  tierNames,
  WINDOW_FIELDS,
  type Rebase,
  type TierForm,
} from '../lib/tiersDoc';
import { useApiClient } from '../lib/useApi';
import { TierDraftPanel } from './TierDraftPanel';

export type TiersDocument = components['schemas']['TierDocument'];

type Stage = 'edit' | 'review' | 'saving' | 'conflict';

interface ConflictState {
  theirs: TiersDocument;
  mine: string;
  base: TiersDocument;
  rebased: Rebase | null;
}

const FIELD_HELP: Record<string, string> = {
  'tokens-per-minute': 'Tokens admitted per 60 s window, before burst.',
  'requests-per-minute': 'Requests per 60 s window, before burst.',
  'burst-allowance': '≥ 1.0: the minute window holds this many times the rate.',
  priority: '1 is served first under load.',
  'default-max-tokens': 'Output reserved when a request names no max_tokens.',
};

export function TiersPage() {
  const api = useApiClient();
  const [server, setServer] = useState<TiersDocument | null>(null);
  const [loadError, setLoadError] = useState<ApiError | null>(null);
  const [draft, setDraft] = useState('');
  const [view, setView] = useState<'form' | 'yaml'>('form');
  const [problems, setProblems] = useState<FieldProblem[]>([]);
  const [checking, setChecking] = useState(false);
  const [stage, setStage] = useState<Stage>('edit');
  const [conflict, setConflict] = useState<ConflictState | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [actionError, setActionError] = useState<ApiError | null>(null);
  const [keptDraft, setKeptDraft] = useState<string | null>(null);
  const yamlRef = useRef<HTMLTextAreaElement>(null);
  // Bumped when this page saves a draft, so the draft panel reads it again (issue 28).
  const [draftKey, setDraftKey] = useState(0);

  const fetchDoc = useCallback(async () => {
    const r = await api.call<TiersDocument>('/tiers');
    return { ...r.data, etag: r.headers.get('ETag') ?? r.data.etag };
  }, [api]);

  const load = useCallback(() => {
    setLoadError(null);
    fetchDoc()
      .then((doc) => {
        setServer(doc);
        setDraft(doc.yaml);
        setProblems([]);
        setStage('edit');
      })
      .catch((e) => setLoadError(e instanceof ApiError ? e : new ApiError(0, 'client', String(e))));
  }, [fetchDoc]);

  useEffect(load, [load]);

  const dirty = server !== null && draft !== server.yaml;

  // Validate while editing (debounced): problems show at their field as soon as the gateway names them.
  useEffect(() => {
    if (!server || !dirty || stage !== 'edit') {
      if (!dirty) setProblems([]);
      return;
    }
    if (parse(draft).errors.length > 0) return;
    const ctl = new AbortController();
    const id = window.setTimeout(() => {
      setChecking(true);
      api
        .call('/tiers/validate', { method: 'POST', raw: { contentType: 'application/yaml', text: draft }, signal: ctl.signal })
        .then(() => setProblems([]))
        .catch((e) => {
          if (ctl.signal.aborted) return;
          if (e instanceof ApiError && e.status === 422) setProblems(e.fields.length ? e.fields : [{ field: '(document)', message: e.message }]);
        })
        .finally(() => !ctl.signal.aborted && setChecking(false));
    }, 500);
    return () => {
      ctl.abort();
      window.clearTimeout(id);
    };
  }, [api, draft, dirty, server, stage]);

  const syntax = useMemo(() => parse(draft).errors, [draft]);
  const allProblems = syntax.length > 0 ? syntax : problems;

  const review = async () => {
    setActionError(null);
    setSaved(null);
    if (syntax.length > 0) {
      setView('yaml');
      return;
    }
    setChecking(true);
    try {
      await api.call('/tiers/validate', { method: 'POST', raw: { contentType: 'application/yaml', text: draft } });
      setProblems([]);
      setStage('review');
    } catch (e) {
      if (e instanceof ApiError && e.status === 422) setProblems(e.fields.length ? e.fields : [{ field: '(document)', message: e.message }]);
      else setActionError(e as ApiError);
    } finally {
      setChecking(false);
    }
  };

  const save = async () => {
    if (!server) return;
    setStage('saving');
    setActionError(null);
    try {
      const r = await api.call<TiersDocument>('/tiers', {
        method: 'PUT',
        raw: { contentType: 'application/yaml', text: draft },
        headers: { 'If-Match': server.etag },
      });
      const doc = { ...r.data, etag: r.headers.get('ETag') ?? r.data.etag };
      setServer(doc);
      setDraft(doc.yaml);
      setProblems([]);
      setKeptDraft(null);
      setStage('edit');
      setSaved(`Saved version ${doc.version}. It is in force on this replica now and on the others within a second or two.`);
    } catch (e) {
      if (e instanceof ApiError && e.status === 412) {
        try {
          const theirs = await fetchDoc();
          setConflict({ theirs, mine: draft, base: server, rebased: rebase(server.yaml, draft, theirs.yaml) });
          setStage('conflict');
        } catch (e2) {
          setActionError(e2 as ApiError);
          setStage('review');
        }
      } else if (e instanceof ApiError && e.status === 422) {
        setProblems(e.fields);
        setStage('edit');
      } else {
        setActionError(e as ApiError);
        setStage('review');
      }
    }
  };

  // Keeps the edit aside as the draft, live untouched: checked as a save is (422 names each problem).
  const saveDraft = async () => {
    if (!server) return;
    setStage('saving');
    setActionError(null);
    try {
      const r = await api.call<{ version: number }>('/tiers/draft', { method: 'PUT', raw: { contentType: 'application/yaml', text: draft } });
      setDraft(server.yaml);
      setProblems([]);
      setStage('edit');
      setDraftKey((k) => k + 1);
      setSaved(`Saved as draft version ${r.data.version}; live is unchanged. Start its shadow to see what it would do to live traffic.`);
    } catch (e) {
      if (e instanceof ApiError && e.status === 422) {
        setProblems(e.fields);
        setStage('edit');
      } else {
        setActionError(e as ApiError);
        setStage('review');
      }
    }
  };

  const goToLine = (line: number) => {
    setView('yaml');
    window.setTimeout(() => {
      const ta = yamlRef.current;
      if (!ta) return;
      const lines = ta.value.split('\n');
      const start = lines.slice(0, line - 1).reduce((s, l) => s + l.length + 1, 0);
      ta.focus();
      ta.setSelectionRange(start, start + (lines[line - 1]?.length ?? 0));
      ta.scrollTop = Math.max(0, (line - 5) * 18);
    }, 0);
  };

  if (loadError) return <PageShell><ErrorNotice error={loadError} retry={load} what="the tiers document" /></PageShell>;
  if (!server) return <PageShell><Loading what="the tiers document" /></PageShell>;

  return (
    <PageShell
      sub={
        <>
          Version {server.version}, saved by {server.updatedBy} {relativeTime(server.updatedAt)} ({formatTime(server.updatedAt)})
          {server.appliedHere ? '' : ' · not in force on this replica: it keeps its last good version'}
        </>
      }
    >
      {saved && <Notice kind="ok">{saved}</Notice>}
      {actionError && <ErrorNotice error={actionError} />}
      {keptDraft !== null && (
        <details className="kept">
          <summary>Your earlier text (kept so nothing you typed is lost)</summary>
          <CopyButton text={keptDraft} label="Copy your earlier text" />
          <pre className="yaml-preview" tabIndex={0}>{keptDraft}</pre>
        </details>
      )}

      {stage === 'conflict' && conflict && (
        <ConflictPanel
          c={conflict}
          onUseRebased={(text) => {
            setKeptDraft(conflict.mine);
            setServer(conflict.theirs);
            setDraft(text);
            setConflict(null);
            setStage('edit');
          }}
          onTakeTheirs={() => {
            setKeptDraft(conflict.mine);
            setServer(conflict.theirs);
            setDraft(conflict.theirs.yaml);
            setConflict(null);
            setStage('edit');
          }}
        />
      )}

      {(stage === 'review' || stage === 'saving') && (
        <section className="panel" aria-labelledby="review-title">
          <h2 id="review-title">Review the change</h2>
          <p>
            The gateway checked this document: it is valid. Saving makes it version {server.version + 1}, in force on every replica within a
            second or two.
          </p>
          <DiffView oldText={server.yaml} newText={draft} oldLabel={`version ${server.version} (saved)`} newLabel="your edit" />
          <div className="actions">
            <button type="button" className="primary" onClick={save} disabled={stage === 'saving'}>
              {stage === 'saving' ? 'Saving…' : `Save version ${server.version + 1}`}
            </button>
            <button type="button" onClick={saveDraft} disabled={stage === 'saving'}>
              Save as draft
            </button>
            <button type="button" onClick={() => setStage('edit')} disabled={stage === 'saving'}>
              Back to editing
            </button>
          </div>
        </section>
      )}

      {stage === 'edit' && (
        <TierDraftPanel
          live={server}
          reloadKey={draftKey}
          onPromoted={(doc) => {
            setServer(doc);
            setDraft(doc.yaml);
            setSaved(null);
          }}
          onEdit={(yaml) => {
            setDraft(yaml);
            setView('yaml');
          }}
        />
      )}

      {stage === 'edit' && (
        <>
          <div className="toolbar">
            <div role="tablist" aria-label="Edit as">
              <button type="button" role="tab" aria-selected={view === 'form'} onClick={() => setView('form')}>
                Form
              </button>
              <button type="button" role="tab" aria-selected={view === 'yaml'} onClick={() => setView('yaml')}>
                YAML
              </button>
            </div>
            <span className="muted" role="status" aria-live="polite">
              {checking ? 'Checking…' : dirty ? (allProblems.length ? `${allProblems.length} problem${allProblems.length === 1 ? '' : 's'}` : 'Unsaved changes, valid') : 'No changes'}
            </span>
            <button type="button" className="primary" onClick={review} disabled={!dirty || checking || allProblems.length > 0}>
              Review changes
            </button>
            <button type="button" onClick={() => setDraft(server.yaml)} disabled={!dirty}>
              Discard changes
            </button>
          </div>
          {view === 'yaml' ? (
            <YamlView text={draft} onChange={setDraft} problems={allProblems} onLine={goToLine} taRef={yamlRef} />
          ) : (
            <FormView text={draft} onChange={setDraft} problems={allProblems} onLine={goToLine} />
          )}
        </>
      )}
    </PageShell>
  );
}

function PageShell({ children, sub }: { children: React.ReactNode; sub?: React.ReactNode }) {
  return (
    <section aria-labelledby="tiers-title">
      <div className="page-head">
        <h1 id="tiers-title">Tiers</h1>
        {sub && <p className="muted">{sub}</p>}
      </div>
      {children}
    </section>
  );
}

function YamlView({ text, onChange, problems, onLine, taRef }: {
  text: string;
  onChange: (t: string) => void;
  problems: FieldProblem[];
  onLine: (line: number) => void;
  taRef: React.RefObject<HTMLTextAreaElement | null>;
}) {
  return (
    <div className="yaml-view">
      {problems.length > 0 && (
        <div className="notice error" role="alert">
          <p>
            <strong>The gateway would refuse this document.</strong> Nothing is saved until it is valid.
          </p>
          <ProblemList problems={problems} onLine={onLine} />
        </div>
      )}
      <label htmlFor="tiers-yaml">The tiers document (YAML)</label>
      <textarea
        id="tiers-yaml"
        ref={taRef}
        value={text}
        spellCheck={false}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={problems.length > 0 || undefined}
        rows={28}
      />
    </div>
  );
}

function FormView({ text, onChange, problems, onLine }: { text: string; onChange: (t: string) => void; problems: FieldProblem[]; onLine: (l: number) => void }) {
  const parsed = parse(text);
  if (!parsed.doc) {
    return (
      <div className="notice error" role="alert">
        <p>
          <strong>The YAML does not parse, so the form cannot show it.</strong> Fix it in the YAML view:
        </p>
        <ProblemList problems={parsed.errors} onLine={onLine} />
      </div>
    );
  }
  const forms = tierNames(parsed.doc).map((n) => readTier(parsed.doc!, n));
  const paths = forms.flatMap(tierFieldPaths);
  const { byField, rest } = problemsByField(problems, paths);
  return (
    <div className="tier-forms">
      {rest.length > 0 && (
        <div className="notice error" role="alert">
          <p>
            <strong>Problems outside the tier forms</strong> (fix them in the YAML view):
          </p>
          <ProblemList problems={rest} onLine={onLine} />
        </div>
      )}
      {forms.length === 0 && <p className="state empty">The document has no tiers. Add one in the YAML view.</p>}
      {forms.map((f) => (
        <TierFieldset key={f.name} form={f} text={text} onChange={onChange} byField={byField} onLine={onLine} />
      ))}
    </div>
  );
}

function TierFieldset({ form, text, onChange, byField, onLine }: {
  form: TierForm;
  text: string;
  onChange: (t: string) => void;
  byField: Map<string, FieldProblem[]>;
  onLine: (l: number) => void;
}) {
  const base = `tiers.${form.name}`;
  const tierProblems = byField.get(base) ?? [];
  return (
    <fieldset className="tier" aria-describedby={tierProblems.length ? `${base}-problems` : undefined}>
      <legend>{form.name}</legend>
      {tierProblems.length > 0 && (
        <div id={`${base}-problems`} className="field-problems">
          <ProblemList problems={tierProblems} onLine={onLine} />
        </div>
      )}
      <div className="grid-fields">
        {NUMBER_FIELDS.map((f) => (
          <Field
            key={f}
            id={`${base}.${f}`}
            label={f}
            help={FIELD_HELP[f]}
            value={form[f]}
            problems={byField.get(`${base}.${f}`)}
            onCommit={(v) => onChange(setScalar(text, ['tiers', form.name, f], v))}
            inputMode={f === 'burst-allowance' ? 'decimal' : 'numeric'}
          />
        ))}
        <SelectField
          id={`${base}.allow-no-downgrade`}
          label="allow-no-downgrade"
          help="Honour X-Sluice-No-Downgrade."
          value={form['allow-no-downgrade']}
          options={[['', '(default: false)'], ['true', 'true'], ['false', 'false']]}
          problems={byField.get(`${base}.allow-no-downgrade`)}
          onCommit={(v) => onChange(setScalar(text, ['tiers', form.name, 'allow-no-downgrade'], v))}
        />
        <SelectField
          id={`${base}.redis-down`}
          label="redis-down"
          help="When Redis does not answer."
          value={form['redis-down']}
          options={[['', '(default: fail-open)'], ['fail-open', 'fail-open'], ['fail-closed', 'fail-closed']]}
          problems={byField.get(`${base}.redis-down`)}
          onCommit={(v) => onChange(setScalar(text, ['tiers', form.name, 'redis-down'], v))}
        />
        <Field
          id={`${base}.endpoints`}
          label="endpoints"
          help="Families opened whole, e.g. chat, files, realtime. Blank: the default (metered and free operations of chat … batches)."
          value={form.endpoints}
          problems={byField.get(`${base}.endpoints`)}
          onCommit={(v) => onChange(setEndpoints(text, form.name, v))}
          inputMode="text"
        />
      </div>
      <DowngradeField id={`${base}.downgrade`} value={form.downgrade} problems={byField.get(`${base}.downgrade`)} onCommit={(box) => onChange(setDowngrade(text, form.name, box))} />
      <div className="grid-fields">
        <Field
          id={`${base}.models`}
          label="models"
          help="The models the tier may name, e.g. gpt-4o-mini, gpt-4o; any other is 403 model_not_allowed. Blank: every model."
          value={form.models}
          problems={byField.get(`${base}.models`)}
          onCommit={(v) => onChange(setModels(text, form.name, v))}
          inputMode="text"
        />
        <Field
          id={`${base}.spend`}
          label="spend"
          help="Spend budgets per tenant, e.g. usd-per-day: 1.00, usd-per-month: 20, time-zone: UTC. Over one: 429 budget_exceeded until the period turns. Blank: no spend cap."
          value={form.spend}
          problems={byField.get(`${base}.spend`)}
          onCommit={(v) => onChange(setSpend(text, form.name, v))}
          inputMode="text"
        />
      </div>
      <DowngradeField
        id={`${base}.model-limits`}
        field="model-limits"
        label='model-limits (one "model: tokens-per-minute[, requests-per-minute]" a line)'
        parseBox={(box) => parseModelLimits(box).errors}
        value={form['model-limits']}
        problems={byField.get(`${base}.model-limits`)}
        onCommit={(box) => onChange(setModelLimits(text, form.name, box))}
      />
      <div className="windows">
        <p className="label">Longer windows</p>
        {(byField.get(`${base}.windows`) ?? []).length > 0 && <ProblemList problems={byField.get(`${base}.windows`)!} onLine={onLine} />}
        {form.windows.length === 0 && <p className="muted small">None: the hour window defaults to 60 × the minute&apos;s caps.</p>}
        {form.windows.map((w, i) => (
          <div className="window-row" key={i} role="group" aria-label={`Window ${i + 1}${w.name ? `: ${w.name}` : ''}`}>
            {WINDOW_FIELDS.map((f) => (
              <Field
                key={f}
                id={`${base}.windows[${i}].${f}`}
                label={f}
                value={w[f]}
                problems={byField.get(`${base}.windows[${i}].${f}`)}
                onCommit={(v) => onChange(setScalar(text, ['tiers', form.name, 'windows', i, f], v))}
                inputMode={f === 'name' ? 'text' : 'numeric'}
              />
            ))}
            <button type="button" className="small" onClick={() => onChange(removeWindow(text, form.name, i))} aria-label={`Remove window ${w.name || i + 1} of ${form.name}`}>
              Remove
            </button>
          </div>
        ))}
        <button type="button" className="small" onClick={() => onChange(addWindow(text, form.name))}>
          Add a window
        </button>
      </div>
    </fieldset>
  );
}

/** A text field that keeps what is being typed ("1." on the way to "1.5") while the document holds the value. */
function Field({ id, label, help, value, problems, onCommit, inputMode }: {
  id: string;
  label: string;
  help?: string;
  value: string;
  problems?: FieldProblem[];
  onCommit: (v: string) => void;
  inputMode?: 'numeric' | 'decimal' | 'text';
}) {
  const [local, setLocal] = useState(value);
  const [focused, setFocused] = useState(false);
  useEffect(() => {
    if (!focused) setLocal(value);
  }, [value, focused]);
  const bad = problems && problems.length > 0;
  const describedBy = [help ? `${id}-help` : '', bad ? fieldErrorId(id) : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div className={`field${bad ? ' invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        name={id}
        value={local}
        inputMode={inputMode}
        aria-invalid={bad || undefined}
        aria-describedby={describedBy}
        onFocus={() => setFocused(true)}
        onBlur={() => setFocused(false)}
        onChange={(e) => {
          setLocal(e.target.value);
          onCommit(e.target.value);
        }}
      />
      {help && (
        <span id={`${id}-help`} className="help">
          {help}
        </span>
      )}
      <FieldError id={fieldErrorId(id)} problems={problems} />
    </div>
  );
}

function SelectField({ id, label, help, value, options, problems, onCommit }: {
  id: string;
  label: string;
  help?: string;
  value: string;
  options: [string, string][];
  problems?: FieldProblem[];
  onCommit: (v: string) => void;
}) {
  const bad = problems && problems.length > 0;
  const known = options.some(([v]) => v === value);
  return (
    <div className={`field${bad ? ' invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onCommit(e.target.value)} aria-invalid={bad || undefined} aria-describedby={bad ? fieldErrorId(id) : help ? `${id}-help` : undefined}>
        {!known && <option value={value}>{value}</option>}
        {options.map(([v, l]) => (
          <option key={v} value={v}>
            {l}
          </option>
        ))}
      </select>
      {help && (
        <span id={`${id}-help`} className="help">
          {help}
        </span>
      )}
      <FieldError id={fieldErrorId(id)} problems={problems} />
    </div>
  );
}

/** A box of one mapping entry a line: the downgrade map by default, or another (`field`, `label`, `parseBox`). */
function DowngradeField({
  id,
  value,
  problems,
  onCommit,
  field = 'downgrade',
  label = 'downgrade (one "model: cheaper-model" a line)',
  parseBox = (box: string) => parseDowngrade(box).errors,
}: {
  id: string;
  value: string;
  problems?: FieldProblem[];
  onCommit: (box: string) => void;
  field?: string;
  label?: string;
  parseBox?: (box: string) => string[];
}) {
  const [local, setLocal] = useState(value);
  const [focused, setFocused] = useState(false);
  useEffect(() => {
    if (!focused) setLocal(value);
  }, [value, focused]);
  const syntax = parseBox(local);
  const prefix = new RegExp(`^.*\\.${field}\\.?`);
  const msgs = [...syntax, ...(problems ?? []).map((p) => `${p.field.replace(prefix, '') || field}: ${p.message}`)];
  return (
    <div className={`field wide${msgs.length ? ' invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      <textarea
        id={id}
        rows={Math.max(2, local.split('\n').length)}
        value={local}
        spellCheck={false}
        aria-invalid={msgs.length > 0 || undefined}
        aria-describedby={msgs.length ? fieldErrorId(id) : undefined}
        onFocus={() => setFocused(true)}
        onBlur={() => {
          setFocused(false);
          if (parseBox(local).length === 0) onCommit(local);
        }}
        onChange={(e) => {
          setLocal(e.target.value);
          if (parseBox(e.target.value).length === 0) onCommit(e.target.value);
        }}
      />
      <FieldError id={fieldErrorId(id)} messages={msgs} />
    </div>
  );
}

function ConflictPanel({ c, onUseRebased, onTakeTheirs }: { c: ConflictState; onUseRebased: (text: string) => void; onTakeTheirs: () => void }) {
  const fmt = (v: unknown) => (v === undefined ? '(absent)' : JSON.stringify(v));
  return (
    <section className="panel conflict" aria-labelledby="conflict-title">
      <h2 id="conflict-title">Someone else saved first</h2>
      <Notice kind="warn">
        <p>
          While you were editing, <strong>{c.theirs.updatedBy}</strong> saved version {c.theirs.version} ({relativeTime(c.theirs.updatedAt)}). Your
          save was refused so that their change is not lost silently. <strong>Your edits are kept</strong>: re-apply them on their version, look,
          then save.
        </p>
      </Notice>
      <h3>What they changed (version {c.base.version} → {c.theirs.version})</h3>
      <DiffView oldText={c.base.yaml} newText={c.theirs.yaml} oldLabel={`version ${c.base.version}, which you edited`} newLabel={`version ${c.theirs.version}, theirs`} />
      {c.rebased ? (
        <>
          <h3>Your edits on top of their version</h3>
          {c.rebased.conflicts.length > 0 && (
            <div className="notice warn" role="alert">
              <p>Both of you changed these fields; your value is the one re-applied below:</p>
              <ul>
                {c.rebased.conflicts.map((x) => (
                  <li key={x.field}>
                    <code>{x.field}</code>: theirs {fmt(x.theirs)}, yours {fmt(x.mine)} (was {fmt(x.base)})
                  </li>
                ))}
              </ul>
            </div>
          )}
          <DiffView oldText={c.theirs.yaml} newText={c.rebased.text} oldLabel={`version ${c.theirs.version}, theirs`} newLabel="with your edits" />
          <div className="actions">
            <button type="button" className="primary" onClick={() => onUseRebased(c.rebased!.text)}>
              Re-apply my edits on their version
            </button>
            <button type="button" onClick={onTakeTheirs}>
              Drop my edits, keep theirs
            </button>
          </div>
        </>
      ) : (
        <>
          <p>Your text does not parse as YAML, so it cannot be merged field by field. You can take it as it is onto their version and fix it there.</p>
          <div className="actions">
            <button type="button" className="primary" onClick={() => onUseRebased(c.mine)}>
              Keep my text (it replaces theirs when saved)
            </button>
            <button type="button" onClick={onTakeTheirs}>
              Drop my edits, keep theirs
            </button>
          </div>
        </>
      )}
    </section>
  );
}
