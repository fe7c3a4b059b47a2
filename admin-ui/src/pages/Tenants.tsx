import { useEffect, useState, type FormEvent } from 'react';
import { Sparkline } from '../components/Charts';
import { FieldError, fieldErrorId } from '../components/FieldError';
import { TenantSpendPanel, UsageExport } from '../components/Spend';
import { Keys } from '../components/TenantKeys';
import { TierSelect } from '../components/TierSelect';
import { Empty, ErrorNotice, Loading, Notice } from '../components/States';
import { ApiError, type FieldProblem } from '../lib/api';
import type { components } from '../lib/api-types';
import { usagePoints, type BulkUsage } from '../lib/usage';
import { useApiClient, useLoad } from '../lib/useApi';

type Schemas = components['schemas'];
type Tenant = Schemas['Tenant'];
type TiersDoc = Schemas['TierDocument'];

export function TenantsPage() {
  const api = useApiClient();
  const [hours, setHours] = useState(6);
  const [tenants, reloadTenants] = useLoad<{ tenants: Tenant[] }>('/tenants');
  const [usage, reloadUsage] = useLoad<BulkUsage>(`/usage?hours=${hours}`, 60_000);
  const [tiers] = useLoad<TiersDoc>('/tiers');
  const [orgs] = useLoad<{ organisations: { id: string }[] }>('/organisations');
  const orgIds = orgs.data?.organisations.map((o) => o.id) ?? [];
  const [filter, setFilter] = useState('');
  const [open, setOpen] = useState<string | null>(null);
  const [spendOf, setSpendOf] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState<string | null>(null);

  const tierNames = tiers.state === 'ok' && tiers.data.config ? Object.keys(tiers.data.config.tiers) : [];

  const patch = async (t: Tenant, change: Partial<Pick<Tenant, 'tier' | 'suspended'>> | { organisation: string | null }, done: string) => {
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
              <th scope="col">Organisation</th>
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
                <td colSpan={7} className="state empty">
                  No tenant matches “{filter}”.
                </td>
              </tr>
            )}
            {shown.map((t) => (
              <TenantRow
                key={t.id}
                t={t}
                tiers={tierNames}
                organisations={orgIds}
                onOrganisation={(o) =>
                  patch(t, { organisation: o }, o ? `${t.id} joined ${o}: its windows start afresh under the organisation.` : `${t.id} left ${t.organisation}.`)
                }
                busy={busy === t.id}
                open={open === t.id}
                onToggle={() => setOpen(open === t.id ? null : t.id)}
                spendOpen={spendOf === t.id}
                onSpend={() => setSpendOf(spendOf === t.id ? null : t.id)}
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
      <UsageExport />
      <CreateTenant tiers={tierNames} onCreated={(id) => { setNotice(`Tenant ${id} created. Issue it a key to let it call /v1.`); setOpen(id); reloadTenants(); }} />
    </section>
  );
}

function TenantRow({ t, tiers, organisations, onOrganisation, busy, open, onToggle, spendOpen, onSpend, onTier, onSuspend, usage, onKeysChanged }: {
  t: Tenant;
  tiers: string[];
  organisations: string[];
  onOrganisation: (organisation: string | null) => void;
  busy: boolean;
  open: boolean;
  onToggle: () => void;
  spendOpen: boolean;
  onSpend: () => void;
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
  const [pendingOrg, setPendingOrg] = useState(t.organisation ?? '');
  useEffect(() => setPendingOrg(t.organisation ?? ''), [t.organisation]);
  const orgId = `org-of-${t.id}`;
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
        <td className="tier-cell">
          <label htmlFor={orgId} className="sr-only">
            Organisation of {t.id}
          </label>
          <select id={orgId} value={pendingOrg} disabled={busy} onChange={(e) => setPendingOrg(e.target.value)}>
            <option value="">none</option>
            {(t.organisation && !organisations.includes(t.organisation) ? [t.organisation, ...organisations] : organisations).map((o) => (
              <option key={o} value={o}>
                {o}
              </option>
            ))}
          </select>
          {pendingOrg !== (t.organisation ?? '') && (
            <>
              {' '}
              <button type="button" className="small primary" onClick={() => onOrganisation(pendingOrg || null)} disabled={busy}>
                {pendingOrg ? `Move to ${pendingOrg}` : 'Leave organisation'}
              </button>{' '}
              <button type="button" className="small" onClick={() => setPendingOrg(t.organisation ?? '')} aria-label={`Keep ${t.id}'s organisation`}>
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
          <button type="button" onClick={onSpend} aria-expanded={spendOpen} aria-controls={`spend-${t.id}`} aria-label={`Spend of ${t.id}`}>
            Spend
          </button>
        </td>
      </tr>
      {spendOpen && (
        <tr className="detail">
          <td colSpan={7} id={`spend-${t.id}`}>
            <TenantSpendPanel tenant={t.id} />
          </td>
        </tr>
      )}
      {open && (
        <tr className="detail">
          <td colSpan={7} id={`keys-${t.id}`}>
            <Keys tenant={t.id} onChanged={onKeysChanged} />
          </td>
        </tr>
      )}
    </>
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
