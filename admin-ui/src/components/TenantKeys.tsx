import { useEffect, useState, type FormEvent } from 'react';
import { ApiError } from '../lib/api';
import type { components } from '../lib/api-types';
import { formatTime, relativeTime } from '../lib/format';
import { capsBody, capsFormOf, capsSummary, isExpired, noCaps, type CapsForm } from '../lib/keys';
import { useApiClient, useLoad } from '../lib/useApi';
import { CopyButton } from './CopyButton';
import { ErrorNotice, Loading, Notice } from './States';

type Key = components['schemas']['Key'];
type Issued = components['schemas']['IssuedKey'];

/** A tenant's keys: issue one (its secret shown once, with optional caps and expiry), edit its caps, revoke one after a confirmation. */
export function Keys({ tenant, onChanged }: { tenant: string; onChanged: () => void }) {
  const api = useApiClient();
  const path = `/tenants/${encodeURIComponent(tenant)}/keys`;
  const [keys, reload] = useLoad<{ keys: Key[] }>(path);
  const [issued, setIssued] = useState<Issued | null>(null);
  const [confirm, setConfirm] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [caps, setCaps] = useState<CapsForm>(noCaps);
  const [problem, setProblem] = useState<string | null>(null);
  const [editing, setEditing] = useState<string | null>(null);

  const issue = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setNotice(null);
    const asked = capsBody(caps, false);
    if ('problem' in asked) {
      setProblem(asked.problem);
      return;
    }
    setProblem(null);
    try {
      setIssued(await api.send<Issued>('POST', path, Object.keys(asked.body).length > 0 ? asked.body : undefined));
      setCaps(noCaps);
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
              <th scope="col">Own caps</th>
              <th scope="col">Expires</th>
              <th scope="col">Action</th>
            </tr>
          </thead>
          <tbody>
            {keys.data.keys.map((k) => (
              <KeyRow key={k.id} k={k} editing={editing === k.id} onEdit={() => setEditing(editing === k.id ? null : k.id)}
                onSaved={() => { setEditing(null); setNotice(`Key ${k.id} changed: effective from its next request.`); reload(); }}
                path={`${path}/${encodeURIComponent(k.id)}`}>
                <td>
                  <code>{k.id}</code>
                </td>
                <td>{k.hint ? <code>{k.hint}</code> : <span className="muted">demo key (from tiers.yaml)</span>}</td>
                <td title={formatTime(k.createdAt)}>{relativeTime(k.createdAt)}</td>
                <td>{capsSummary(k) ?? <span className="muted">the tenant&apos;s</span>}</td>
                <td>
                  {!k.expiresAt ? (
                    <span className="muted">never</span>
                  ) : isExpired(k) ? (
                    <span className="badge bad" title={formatTime(k.expiresAt)}>expired</span>
                  ) : (
                    <span title={formatTime(k.expiresAt)}>{relativeTime(k.expiresAt)}</span>
                  )}
                </td>
                <td>
                  <button type="button" onClick={() => setEditing(editing === k.id ? null : k.id)} aria-expanded={editing === k.id} aria-label={`Edit caps of ${k.id}`}>
                    Edit caps
                  </button>{' '}
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
              </KeyRow>
            ))}
          </tbody>
        </table>
      )}
      <form className="issue-key" onSubmit={issue} noValidate aria-label={`Issue a key for ${tenant}`}>
        <CapsFields prefix={`issue-${tenant}`} caps={caps} onChange={setCaps} />
        {problem && (
          <p className="field-error" role="alert">
            {problem}
          </p>
        )}
        <button type="submit" className="primary">
          Issue a new key
        </button>
      </form>
    </div>
  );
}

/** Optional caps below the tenant's: empty means none. The expiry is read as UTC. */
function CapsFields({ prefix, caps, onChange }: { prefix: string; caps: CapsForm; onChange: (c: CapsForm) => void }) {
  return (
    <div className="toolbar caps">
      <label htmlFor={`${prefix}-tpm`}>Tokens per minute</label>
      <input id={`${prefix}-tpm`} inputMode="numeric" size={9} value={caps.tokensPerMinute} placeholder="none"
        onChange={(e) => onChange({ ...caps, tokensPerMinute: e.target.value })} />
      <label htmlFor={`${prefix}-usd`}>USD per day</label>
      <input id={`${prefix}-usd`} inputMode="decimal" size={7} value={caps.usdPerDay} placeholder="none"
        onChange={(e) => onChange({ ...caps, usdPerDay: e.target.value })} />
      <label htmlFor={`${prefix}-exp`}>Expires (UTC)</label>
      <input id={`${prefix}-exp`} type="datetime-local" value={caps.expiresAt} onChange={(e) => onChange({ ...caps, expiresAt: e.target.value })} />
    </div>
  );
}

/** A key's row, and under it, while editing, its caps form (PATCH: an emptied field removes that cap). */
function KeyRow({ k, editing, onEdit, onSaved, path, children }: {
  k: Key;
  editing: boolean;
  onEdit: () => void;
  onSaved: () => void;
  path: string;
  children: React.ReactNode;
}) {
  const api = useApiClient();
  const [caps, setCaps] = useState<CapsForm>(() => capsFormOf(k));
  const [problem, setProblem] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  // Each opening starts from the key as it is now.
  useEffect(() => {
    if (editing) setCaps(capsFormOf(k));
  }, [editing, k]);
  const save = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    const asked = capsBody(caps, true);
    if ('problem' in asked) {
      setProblem(asked.problem);
      return;
    }
    setProblem(null);
    try {
      await api.send('PATCH', path, asked.body);
      onSaved();
    } catch (err) {
      setError(err as ApiError);
    }
  };
  return (
    <>
      <tr className={isExpired(k) ? 'expired' : ''}>{children}</tr>
      {editing && (
        <tr className="detail">
          <td colSpan={6}>
            <form onSubmit={save} noValidate aria-label={`Caps of ${k.id}`}>
              {error && <ErrorNotice error={error} />}
              <CapsFields prefix={`edit-${k.id}`} caps={caps} onChange={setCaps} />
              {problem && (
                <p className="field-error" role="alert">
                  {problem}
                </p>
              )}
              <button type="submit" className="primary small">
                Save caps of {k.id}
              </button>{' '}
              <button type="button" className="small" onClick={onEdit}>
                Cancel
              </button>
            </form>
          </td>
        </tr>
      )}
    </>
  );
}
