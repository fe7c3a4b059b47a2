import { useState, type FormEvent } from 'react';
import { BudgetBar, DailySpendChart } from '../components/Spend';
import { FieldError } from '../components/FieldError';
import { Empty, ErrorNotice, Loading, Notice } from '../components/States';
import { ApiError } from '../lib/api';
import type { components } from '../lib/api-types';
import { formatCount, formatMs } from '../lib/format';
import {
  candidates, emptyForm, formOf, organisationBody, windowLength, windowShare,
  type Organisation, type OrganisationForm, type OrganisationSpend, type OrganisationUsage, type Problem, type WindowNow,
} from '../lib/organisations';
import { usd } from '../lib/spend';
import { useApiClient, useLoad } from '../lib/useApi';

type Tenant = components['schemas']['Tenant'];

/** Organisations: groups of tenants sharing windows and spend budgets; their members, usage now and 30 days of spend. */
export function OrganisationsPage() {
  const [orgs, reload] = useLoad<{ organisations: Organisation[] }>('/organisations');
  const [tenants, reloadTenants] = useLoad<{ tenants: Tenant[] }>('/tenants');
  const [open, setOpen] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const list = orgs.data?.organisations ?? [];
  const changed = (message: string) => {
    setNotice(message);
    reload();
    reloadTenants();
  };
  return (
    <section aria-labelledby="orgs-title">
      <div className="page-head">
        <h1 id="orgs-title">Organisations</h1>
        <p className="muted">
          An organisation&apos;s windows and spend budgets are shared by all its tenants: a request passes only if the key, the tenant and its
          organisation all admit it. Changes take effect on the members&apos; next request.
        </p>
      </div>
      {notice && <Notice kind="ok">{notice}</Notice>}
      {orgs.state === 'error' && <ErrorNotice error={orgs.error} retry={reload} what="the organisations" />}
      {orgs.state === 'loading' && !orgs.data && <Loading what="organisations" />}
      {orgs.data && list.length === 0 && <Empty title="No organisations yet.">Create one below, then add tenants to it.</Empty>}
      {list.length > 0 && (
        <table className="orgs">
          <caption className="sr-only">Organisations with their shared caps and members</caption>
          <thead>
            <tr>
              <th scope="col">Organisation</th>
              <th scope="col">Shared windows</th>
              <th scope="col">Spend budgets</th>
              <th scope="col">Members</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {list.map((o) => (
              <OrganisationRow key={o.id} o={o} open={open === o.id} onToggle={() => setOpen(open === o.id ? null : o.id)}
                tenants={tenants.data?.tenants ?? []} onChanged={changed} />
            ))}
          </tbody>
        </table>
      )}
      <OrganisationEditor key="new" onSaved={(o) => { changed(`Organisation ${o.id} created. Add tenants to it.`); setOpen(o.id); }} />
    </section>
  );
}

function OrganisationRow({ o, open, onToggle, tenants, onChanged }: {
  o: Organisation;
  open: boolean;
  onToggle: () => void;
  tenants: Tenant[];
  onChanged: (message: string) => void;
}) {
  const spend = [o.spend?.['usd-per-day'] != null && `${usd(o.spend['usd-per-day'])}/day`, o.spend?.['usd-per-month'] != null && `${usd(o.spend['usd-per-month'])}/month`]
    .filter(Boolean)
    .join(' · ');
  return (
    <>
      <tr>
        <th scope="row">
          {o.id}
          {o.name !== o.id && <div className="muted small">{o.name}</div>}
        </th>
        <td>{o.windows.length === 0 ? <span className="muted">none</span> : o.windows.map((w) => `${formatCount(w.tokens)} tokens / ${windowLength(w.seconds)}`).join(' · ')}</td>
        <td>{spend || <span className="muted">none</span>}</td>
        <td>{o.members.length === 0 ? <span className="muted">none</span> : o.members.join(', ')}</td>
        <td className="row-actions">
          <button type="button" onClick={onToggle} aria-expanded={open} aria-controls={`org-${o.id}`} aria-label={`Open ${o.id}`}>
            {open ? 'Close' : 'Open'}
          </button>
        </td>
      </tr>
      {open && (
        <tr className="detail">
          <td colSpan={5} id={`org-${o.id}`}>
            <OrganisationDetail o={o} tenants={tenants} onChanged={onChanged} />
          </td>
        </tr>
      )}
    </>
  );
}

function OrganisationDetail({ o, tenants, onChanged }: { o: Organisation; tenants: Tenant[]; onChanged: (message: string) => void }) {
  const api = useApiClient();
  const base = `/organisations/${encodeURIComponent(o.id)}`;
  const [usage, reloadUsage] = useLoad<OrganisationUsage>(`${base}/usage`, 15_000);
  const [spend, reloadSpend] = useLoad<OrganisationSpend>(`${base}/spend?days=30`, 30_000);
  const [error, setError] = useState<ApiError | null>(null);
  const [adding, setAdding] = useState('');
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [editing, setEditing] = useState(false);
  const others = candidates(tenants, o.id);

  const membership = async (tenant: string, organisation: string | null, message: string) => {
    setError(null);
    try {
      await api.send('PATCH', `/tenants/${encodeURIComponent(tenant)}`, { organisation });
      setAdding('');
      onChanged(message);
      reloadSpend();
      reloadUsage();
    } catch (e) {
      setError(e as ApiError);
    }
  };
  const remove = async () => {
    setError(null);
    try {
      await api.send('DELETE', base);
      onChanged(`Organisation ${o.id} deleted.`);
    } catch (e) {
      setConfirmDelete(false);
      setError(e as ApiError);
    }
  };

  return (
    <div className="org-detail">
      {error && <ErrorNotice error={error} />}
      <div className="org-columns">
        <div className="spend">
          <h2 className="h3">Usage of {o.id} now</h2>
          {usage.state === 'error' && <ErrorNotice error={usage.error} retry={reloadUsage} what="the usage" />}
          {usage.state === 'loading' && !usage.data && <Loading what="usage" />}
          {usage.data && usage.data.windows.length === 0 && usage.data.spend.length === 0 && (
            <p className="muted">No shared window or budget: its tenants are capped by their own tiers only.</p>
          )}
          <div className="budgets">
            {usage.data?.windows.map((w) => <WindowBar key={w.name} w={w} />)}
            {spend.data?.budgets.map((b) => <BudgetBar key={b.period} budget={b} />)}
          </div>
          {spend.state === 'error' && <ErrorNotice error={spend.error} retry={reloadSpend} what="the spend" />}
          {spend.data && (
            <>
              <DailySpendChart series={spend.data.series} label={`Daily spend of ${o.id}'s members, last ${spend.data.days} days (UTC)`} />
              <p className="muted small">
                Last {spend.data.days} days: {usd(spend.data.totals.usd)}, {formatCount(spend.data.totals.requests)} requests, summed over its
                current members (a tenant that left took its history with it).
              </p>
            </>
          )}
        </div>
        <div className="members">
          <h2 className="h3">Members of {o.id}</h2>
          {o.members.length === 0 ? (
            <p className="muted">No members yet.</p>
          ) : (
            <ul className="member-list">
              {o.members.map((m) => (
                <li key={m}>
                  {m}{' '}
                  <button type="button" className="small" onClick={() => membership(m, null, `${m} left ${o.id}.`)} aria-label={`Remove ${m} from ${o.id}`}>
                    Remove
                  </button>
                </li>
              ))}
            </ul>
          )}
          <form className="toolbar" onSubmit={(e) => { e.preventDefault(); if (adding) membership(adding, o.id, `${adding} joined ${o.id}: its windows start afresh under the organisation.`); }}>
            <label htmlFor={`add-${o.id}`}>Add tenant</label>
            <select id={`add-${o.id}`} value={adding} onChange={(e) => setAdding(e.target.value)}>
              <option value="">choose…</option>
              {others.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.id}
                  {t.from ? ` (now in ${t.from})` : ''}
                </option>
              ))}
            </select>
            <button type="submit" className="primary" disabled={!adding}>
              Add
            </button>
          </form>
        </div>
      </div>
      <div className="toolbar">
        <button type="button" onClick={() => setEditing(!editing)} aria-expanded={editing}>
          {editing ? 'Stop editing' : `Edit ${o.id}`}
        </button>
        {confirmDelete ? (
          <span role="group" aria-label={`Confirm deleting ${o.id}`}>
            Delete {o.id}?{' '}
            <button type="button" className="danger" onClick={remove} autoFocus>
              Yes, delete {o.id}
            </button>{' '}
            <button type="button" onClick={() => setConfirmDelete(false)}>
              Cancel
            </button>
          </span>
        ) : (
          <button type="button" className="danger" onClick={() => setConfirmDelete(true)}>
            Delete {o.id}
          </button>
        )}
      </div>
      {editing && (
        <OrganisationEditor key={o.id} existing={o} onSaved={() => { setEditing(false); onChanged(`Organisation ${o.id} saved.`); reloadUsage(); reloadSpend(); }} />
      )}
    </div>
  );
}

/** A shared token window now: the fuller of its tokens and requests, and when it has room again. */
function WindowBar({ w }: { w: WindowNow }) {
  const { share, level } = windowShare(w);
  const name = `Window ${w.name} (${windowLength(w.seconds)})`;
  return (
    <div className="meter">
      <div className="meter-label">
        <span>{name}</span>
        <span>
          {formatCount(w.usedTokens)} of {formatCount(w.limitTokens)} tokens
          {w.limitRequests != null && ` · ${formatCount(w.usedRequests)} of ${formatCount(w.limitRequests)} requests`}
        </span>
      </div>
      <div className="meter-bar" role="meter" aria-label={`${name}: ${Math.round(share * 100)} % used`} aria-valuemin={0} aria-valuemax={100}
        aria-valuenow={Math.round(Math.min(1, share) * 100)}>
        <div className={`meter-fill ${level}`} style={{ width: `${Math.min(1, share) * 100}%` }} />
      </div>
      {w.usedTokens > 0 && <div className="muted small">Frees up in {formatMs(w.resetMs)}</div>}
    </div>
  );
}

/** Creates an organisation, or edits one's name, windows and spend budgets (the API's shapes). */
function OrganisationEditor({ existing, onSaved }: { existing?: Organisation; onSaved: (o: Organisation) => void }) {
  const api = useApiClient();
  const creating = !existing;
  const [form, setForm] = useState<OrganisationForm>(() => (existing ? formOf(existing) : emptyForm()));
  const [problems, setProblems] = useState<Problem[]>([]);
  const [error, setError] = useState<ApiError | null>(null);
  const prefix = creating ? 'new-org' : `edit-${existing.id}`;
  const set = (change: Partial<OrganisationForm>) => setForm({ ...form, ...change });
  const setWindow = (i: number, change: Partial<OrganisationForm['windows'][number]>) =>
    set({ windows: form.windows.map((w, j) => (j === i ? { ...w, ...change } : w)) });
  const shown = new Set<string>();
  const at = (f: string) => {
    shown.add(f);
    return problems.filter((p) => p.field === f).map((p) => p.message).join('; ');
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    const asked = organisationBody(form, creating);
    if ('problems' in asked) {
      setProblems(asked.problems);
      return;
    }
    setProblems([]);
    try {
      const saved = creating
        ? await api.send<Organisation>('POST', '/organisations', asked.body)
        : await api.send<Organisation>('PATCH', `/organisations/${encodeURIComponent(existing.id)}`, asked.body);
      if (creating) setForm(emptyForm());
      onSaved(saved);
    } catch (err) {
      if (err instanceof ApiError && err.status === 422 && err.fields.length > 0) setProblems(err.fields.map((f) => ({ field: f.field ?? '', message: f.message })));
      else setError(err as ApiError);
    }
  };

  const field = (id: string, label: string, value: string, onChange: (v: string) => void, problem: string, help?: string, inputMode?: 'numeric' | 'decimal') => (
    <div className={`field${problem ? ' invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      <input id={id} value={value} inputMode={inputMode} onChange={(e) => onChange(e.target.value)} aria-invalid={!!problem || undefined}
        aria-describedby={problem ? `${id}-err` : help ? `${id}-help` : undefined} />
      {problem ? <FieldError id={`${id}-err`} messages={problem} /> : help && <span id={`${id}-help`} className="help">{help}</span>}
    </div>
  );

  return (
    <form className="panel create" onSubmit={submit} noValidate aria-labelledby={`${prefix}-title`}>
      <h2 id={`${prefix}-title`}>{creating ? 'Add an organisation' : `Edit ${existing.id}`}</h2>
      {error && <ErrorNotice error={error} />}
      <div className="grid-fields">
        {creating && field(`${prefix}-id`, 'Organisation id', form.id, (v) => set({ id: v }), at('id'), 'Lower-case letters, digits, ".", "_" or "-".')}
        {field(`${prefix}-name`, 'Name', form.name, (v) => set({ name: v }), at('name'), 'For people; the id when empty.')}
        {field(`${prefix}-day`, 'USD per day', form.usdPerDay, (v) => set({ usdPerDay: v }), at('spend.usd-per-day'), 'Shared by all members; empty: none.', 'decimal')}
        {field(`${prefix}-month`, 'USD per month', form.usdPerMonth, (v) => set({ usdPerMonth: v }), at('spend.usd-per-month'), 'Empty: none.', 'decimal')}
        {field(`${prefix}-zone`, 'Budget time zone', form.timeZone, (v) => set({ timeZone: v }), at('spend.time-zone'), 'The day and month turn at midnight there.')}
      </div>
      <fieldset className="windows">
        <legend>Shared token windows</legend>
        {form.windows.length === 0 && <p className="muted small">None: only the members&apos; own tiers cap their tokens.</p>}
        {form.windows.map((w, i) => (
          <div className="grid-fields" key={i} role="group" aria-label={`Window ${i + 1}`}>
            {field(`${prefix}-w${i}-name`, 'Window name', w.name, (v) => setWindow(i, { name: v }), at(`windows[${i}].name`))}
            {field(`${prefix}-w${i}-minutes`, 'Minutes', w.minutes, (v) => setWindow(i, { minutes: v }), at(`windows[${i}].seconds`), undefined, 'numeric')}
            {field(`${prefix}-w${i}-tokens`, 'Tokens', w.tokens, (v) => setWindow(i, { tokens: v }), at(`windows[${i}].tokens`), undefined, 'numeric')}
            {field(`${prefix}-w${i}-requests`, 'Requests', w.requests, (v) => setWindow(i, { requests: v }), at(`windows[${i}].requests`), 'Empty: no cap.', 'numeric')}
            <div className="field">
              <button type="button" className="small" onClick={() => set({ windows: form.windows.filter((_, j) => j !== i) })} aria-label={`Remove window ${w.name || i + 1}`}>
                Remove window
              </button>
            </div>
          </div>
        ))}
        <button type="button" className="small" onClick={() => set({ windows: [...form.windows, { name: form.windows.length === 0 ? 'minute' : '', minutes: '1', tokens: '', requests: '' }] })}>
          Add a window
        </button>
      </fieldset>
      {/* What the gateway named on a field this form has no input for (the windows list itself, say). */}
      <FieldError messages={problems.filter((p) => !shown.has(p.field)).map((p) => `${p.field}: ${p.message}`)} />
      <button type="submit" className="primary">
        {creating ? 'Add organisation' : `Save ${existing.id}`}
      </button>
    </form>
  );
}
