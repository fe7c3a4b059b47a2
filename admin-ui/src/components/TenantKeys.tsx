import { useState } from 'react';
import { ApiError } from '../lib/api';
import type { components } from '../lib/api-types';
import { formatTime, relativeTime } from '../lib/format';
import { useApiClient, useLoad } from '../lib/useApi';
import { CopyButton } from './CopyButton';
import { ErrorNotice, Loading, Notice } from './States';

type Key = components['schemas']['Key'];
type Issued = components['schemas']['IssuedKey'];

/** A tenant's keys: issue one (its secret shown once), revoke one after a confirmation. */
export function Keys({ tenant, onChanged }: { tenant: string; onChanged: () => void }) {
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
