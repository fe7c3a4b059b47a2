import { useEffect, useState, type FormEvent } from 'react';
import { Sparkline } from '../components/Charts';
import { CopyButton } from '../components/CopyButton';
import { FieldError, fieldErrorId } from '../components/FieldError';
import { TierSelect } from '../components/TierSelect';
import { Empty, ErrorNotice, Loading, Notice } from '../components/States';
import { ApiError, type FieldProblem } from '../lib/api';
import type { components } from '../lib/api-types';
import { formatTime, relativeTime } from '../lib/format';
import { usagePoints, type BulkUsage } from '../lib/usage';
import { useApiClient, useLoad } from '../lib/useApi';

type Schemas = components['schemas'];
type Tenant = Schemas['Tenant'];
type Key = Schemas['Key'];
type Issued = Schemas['IssuedKey'];
type TiersDoc = Schemas['TierDocument'];

export function TenantsPage() {
  const api = useApiClient();
  const [hours, setHours] = useState(6);
  const [tenants, reloadTenants] = useLoad<{ tenants: Tenant[] }>('/tenants');
  const [usage, reloadUsage] = useLoad<BulkUsage>(`/usage?hours=${hours}`, 60_000);
  const [tiers] = useLoad<TiersDoc>('/tiers');
  const [filter, setFilter] = useState('');
  const [open, setOpen] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState<string | null>(null);

  const tierNames = tiers.state === 'ok' && tiers.data.config ? Object.keys(tiers.data.config.tiers) : [];

  const patch = async (t: Tenant, change: Partial<Pick<Tenant, 'tier' | 'suspended'>>, done: string) => {
    setBusy(t.id);
    setError(null);
    setNotice(null);
    try {
      await api.send('PATCH', `/tenants/${encodeURIComponent(t.id)}`, change);
      setNotice(done);
      reloadTenants();
    } catch (e) {
      setError(e as ApiError);
    } finally {
      setBusy(null);
    }
  };

  const list = tenants.data?.tenants ?? [];
  const shown = list.filter((t) => t.id.includes(filter.trim().toLowerCase()) || t.tier.includes(filter.trim().toLowerCase()));
  const bulk = usage.data;
  const from = bulk ? Date.parse(bulk.from) : 0;
  const to = bulk ? Date.parse(bulk.to) : 0;

  return (
    <section aria-labelledby="tenants-title">
      <div className="page-head">
        <h1 id="tenants-title">Tenants</h1>
        <p className="muted">Changes take effect on the tenant&apos;s next request, on every replica.</p>
      </div>
      {notice && <Notice kind="ok">{notice}</Notice>}
      {error && <ErrorNotice error={error} />}
      <div className="toolbar">
        <label htmlFor="tenant-filter">Filter</label>
        <input id="tenant-filter" type="search" value={filter} onChange={(e) => setFilter(e.target.value)} placeholder="tenant id or tier" />
        <label htmlFor="usage-hours">Usage over</label>
        <select id="usage-hours" value={hours} onChange={(e) => setHours(Number(e.target.value))}>
          {[1, 3, 6, 12, 24].map((h) => (
            <option key={h} value={h}>
              last {h} h
            </option>
          ))}
        </select>
        <button type="button" onClick={() => { reloadTenants(); reloadUsage(); }}>
          Refresh
        </button>
      </div>
      {tenants.state === 'error' && <ErrorNotice error={tenants.error} retry={reloadTenants} what="the tenants" />}
      {usage.state === 'error' && <ErrorNotice error={usage.error} retry={reloadUsage} what="the usage charts" />}
      {tenants.state === 'loading' && !tenants.data && <Loading what="tenants" />}
      {tenants.data && list.length === 0 && (
        <Empty title="No tenants yet.">Create the first one below; then issue it a key.</Empty>
      )}
      {list.length > 0 && (
        <table className="tenants">
          <caption className="sr-only">Tenants with their tier, status, keys and utilisation</caption>
          <thead>
            <tr>
              <th scope="col">Tenant</th>
              <th scope="col">Tier</th>
              <th scope="col">Status</th>
              <th scope="col" className="num">
                Keys
              </th>
              <th scope="col">
                Utilisation, last {hours} h <span className="muted small">(dashed: abuse threshold)</span>
              </th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {shown.length === 0 && (
              <tr>
                <td colSpan={6} className="state empty">
                  No tenant matches “{filter}”.
                </td>
              </tr>
            )}
            {shown.map((t) => (
              <TenantRow
                key={t.id}
                t={t}
                tiers={tierNames}
                busy={busy === t.id}
                open={open === t.id}
                onToggle={() => setOpen(open === t.id ? null : t.id)}
                onTier={(tier) => patch(t, { tier }, `${t.id} moved to ${tier}.`)}
                onSuspend={(s) => patch(t, { suspended: s }, s ? `${t.id} is suspended: its keys get 403 from the next request.` : `${t.id} is active again.`)}
                usage={
                  bulk ? (
                    <Sparkline points={usagePoints(bulk, t.id)} fromMs={from} toMs={to} threshold={bulk.threshold} label={`Utilisation of ${t.id}, last ${hours} h`} />
                  ) : usage.state === 'loading' ? (
                    <span className="muted small">loading…</span>
                  ) : (
                    <span className="muted small">unavailable</span>
                  )
                }
                onKeysChanged={reloadTenants}
              />
            ))}
          </tbody>
        </table>
      )}
      <CreateTenant tiers={tierNames} onCreated={(id) => { setNotice(`Tenant ${id} created. Issue it a key to let it call /v1.`); setOpen(id); reloadTenants(); }} />
    </section>
  );
}

function TenantRow({ t, tiers, busy, open, onToggle, onTier, onSuspend, usage, onKeysChanged }: {
  t: Tenant;
  tiers: string[];
  busy: boolean;
  open: boolean;
  onToggle: () => void;
  onTier: (tier: string) => void;
  onSuspend: (s: boolean) => void;
  usage: React.ReactNode;
  onKeysChanged: () => void;
}) {
  const tierId = `tier-${t.id}`;
  // The tier changes on a button press, not on the select's change: arrow keys on a focused
  // select would otherwise move a tenant while someone is only tabbing through the list.
  const [pending, setPending] = useState(t.tier);
  useEffect(() => setPending(t.tier), [t.tier]);
  return (
    <>
      <tr className={t.suspended ? 'suspended' : ''}>
        <th scope="row">{t.id}</th>
        <td className="tier-cell">
          <label htmlFor={tierId} className="sr-only">
            Tier of {t.id}
          </label>
          <TierSelect id={tierId} value={pending} tiers={tiers.includes(t.tier) ? tiers : [t.tier, ...tiers]} disabled={busy} onChange={setPending} />
          {pending !== t.tier && (
            <>
              {' '}
              <button type="button" className="small primary" onClick={() => onTier(pending)} disabled={busy}>
                Move to {pending}
              </button>{' '}
              <button type="button" className="small" onClick={() => setPending(t.tier)} aria-label={`Keep ${t.id} on ${t.tier}`}>
                Cancel
              </button>
            </>
          )}
        </td>
        <td>
          <span className={`badge ${t.suspended ? 'bad' : 'good'}`}>{t.suspended ? 'suspended' : 'active'}</span>
        </td>
        <td className="num">{t.keyCount}</td>
        <td>{usage}</td>
        <td className="row-actions">
          <button type="button" onClick={() => onSuspend(!t.suspended)} disabled={busy} aria-label={`${t.suspended ? 'Resume' : 'Suspend'} ${t.id}`}>
            {t.suspended ? 'Resume' : 'Suspend'}
          </button>
          <button type="button" onClick={onToggle} aria-expanded={open} aria-controls={`keys-${t.id}`} aria-label={`Keys of ${t.id}`}>
            Keys
          </button>
        </td>
      </tr>
      {open && (
        <tr className="detail">
          <td colSpan={6} id={`keys-${t.id}`}>
            <Keys tenant={t.id} onChanged={onKeysChanged} />
          </td>
        </tr>
      )}
    </>
  );
}

function Keys({ tenant, onChanged }: { tenant: string; onChanged: () => void }) {
  const api = useApiClient();
  const path = `/tenants/${encodeURIComponent(tenant)}/keys`;
  const [keys, reload] = useLoad<{ keys: Key[] }>(path);
  const [issued, setIssued] = useState<Issued | null>(null);
  const [confirm, setConfirm] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const issue = async () => {
    setError(null);
    setNotice(null);
    try {
      setIssued(await api.send<Issued>('POST', path));
      reload();
      onChanged();
    } catch (e) {
      setError(e as ApiError);
    }
  };
  const revoke = async (id: string) => {
    setError(null);
    try {
      await api.send('DELETE', `${path}/${encodeURIComponent(id)}`);
      setConfirm(null);
      setNotice(`Key ${id} revoked: refused on /v1 from the next request.`);
      if (issued?.id === id) setIssued(null);
      reload();
      onChanged();
    } catch (e) {
      setError(e as ApiError);
    }
  };

  return (
    <div className="keys">
      <h2 className="h3">Keys of {tenant}</h2>
      {error && <ErrorNotice error={error} />}
      {notice && <Notice kind="ok">{notice}</Notice>}
      {issued && (
        <div className="notice secret" role="status">
          <p>
            <strong>New key for {tenant}.</strong> {issued.notice}
          </p>
          <p>
            <label htmlFor="new-key" className="sr-only">
              The new key
            </label>
            <input id="new-key" className="secret-value" readOnly value={issued.key} onFocus={(e) => e.target.select()} size={issued.key.length + 2} />{' '}
            <CopyButton text={issued.key} label="Copy key" />
          </p>
          <button type="button" onClick={() => setIssued(null)}>
            I have stored it; hide the key
          </button>
        </div>
      )}
      {keys.state === 'loading' && !keys.data && <Loading what="keys" />}
      {keys.state === 'error' && <ErrorNotice error={keys.error} retry={reload} what="the keys" />}
      {keys.data && keys.data.keys.length === 0 && <p className="muted">No keys: this tenant cannot call /v1 until you issue one.</p>}
      {keys.data && keys.data.keys.length > 0 && (
        <table className="keys-table">
          <thead>
            <tr>
              <th scope="col">Key id</th>
              <th scope="col">Looks like</th>
              <th scope="col">Created</th>
              <th scope="col">Action</th>
            </tr>
          </thead>
          <tbody>
            {keys.data.keys.map((k) => (
              <tr key={k.id}>
                <td>
                  <code>{k.id}</code>
                </td>
                <td>{k.hint ? <code>{k.hint}</code> : <span className="muted">demo key (from tiers.yaml)</span>}</td>
                <td title={formatTime(k.createdAt)}>{relativeTime(k.createdAt)}</td>
                <td>
                  {confirm === k.id ? (
                    <span role="group" aria-label={`Confirm revoking ${k.id}`}>
                      Revoke for good?{' '}
                      <button type="button" className="danger" onClick={() => revoke(k.id)} autoFocus>
                        Yes, revoke {k.id}
                      </button>{' '}
                      <button type="button" onClick={() => setConfirm(null)}>
                        Cancel
                      </button>
                    </span>
                  ) : (
                    <button type="button" onClick={() => setConfirm(k.id)} aria-label={`Revoke ${k.id}`}>
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <button type="button" className="primary" onClick={issue}>
        Issue a new key
      </button>
    </div>
  );
}

function CreateTenant({ tiers, onCreated }: { tiers: string[]; onCreated: (id: string) => void }) {
  const api = useApiClient();
  const [id, setId] = useState('');
  const [tier, setTier] = useState('');
  const [problems, setProblems] = useState<FieldProblem[]>([]);
  const [error, setError] = useState<ApiError | null>(null);
  const pick = tier || tiers[0] || '';
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setProblems([]);
    setError(null);
    try {
      await api.send('POST', '/tenants', { id: id.trim(), tier: pick });
      onCreated(id.trim());
      setId('');
    } catch (err) {
      if (err instanceof ApiError && err.status === 422) setProblems(err.fields);
      else setError(err as ApiError);
    }
  };
  const at = (f: string) => problems.filter((p) => p.field === f).map((p) => p.message).join('; ');
  return (
    <form className="panel create" onSubmit={submit} noValidate>
      <h2>Add a tenant</h2>
      {error && <ErrorNotice error={error} />}
      <div className="grid-fields">
        <div className={`field${at('id') ? ' invalid' : ''}`}>
          <label htmlFor="new-tenant-id">Tenant id</label>
          <input id="new-tenant-id" value={id} onChange={(e) => setId(e.target.value)} aria-invalid={!!at('id') || undefined} aria-describedby="new-tenant-id-help" />
          {at('id') ? (
            <FieldError id="new-tenant-id-help" messages={at('id')} />
          ) : (
            <span id="new-tenant-id-help" className="help">
              Lower-case letters, digits, &quot;.&quot;, &quot;_&quot; or &quot;-&quot;.
            </span>
          )}
        </div>
        <div className={`field${at('tier') ? ' invalid' : ''}`}>
          <label htmlFor="new-tenant-tier">Tier</label>
          <TierSelect id="new-tenant-tier" value={pick} tiers={tiers} onChange={setTier} invalid={!!at('tier')}
            describedBy={at('tier') ? fieldErrorId('new-tenant-tier') : undefined} />
          <FieldError id={fieldErrorId('new-tenant-tier')} messages={at('tier')} />
        </div>
      </div>
      <button type="submit" className="primary">
        Add tenant
      </button>
    </form>
  );
}
