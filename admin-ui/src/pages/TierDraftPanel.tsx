import { useCallback, useEffect, useState } from 'react';
import { DiffView } from '../components/DiffView';
import { ErrorNotice, Notice } from '../components/States';
import { WhatIfChart } from '../components/WhatIfChart';
import { ApiError } from '../lib/api';
import type { components } from '../lib/api-types';
import { formatTime, relativeTime } from '../lib/format';
import { useApiClient } from '../lib/useApi';
import { headline, promoteRefusal, stageRows, STAGES, STAGE_LABELS, signedChange, type TierDraft, type WhatIf } from '../lib/whatif';

type TiersDocument = components['schemas']['TierDocument'];

const PERIODS: [number, string][] = [
  [60, 'last hour'],
  [360, 'last 6 hours'],
  [1440, 'last 24 hours'],
];

/**
 * The saved draft of the tiers document beside the live one: its diff, shadow on/off, what it
 * would have done (the shadow's count, or the replay's estimate before there is one), and Promote.
 * `reloadKey` changes when the page saved a draft, so the panel reads it again.
 */
export function TierDraftPanel({ live, reloadKey, onPromoted, onEdit }: {
  live: TiersDocument;
  reloadKey: number;
  onPromoted: (doc: TiersDocument) => void;
  onEdit: (yaml: string) => void;
}) {
  const api = useApiClient();
  const [draft, setDraft] = useState<TierDraft | null | undefined>(undefined);
  const [whatIf, setWhatIf] = useState<WhatIf | null>(null);
  const [minutes, setMinutes] = useState(60);
  const [error, setError] = useState<ApiError | null>(null);
  const [message, setMessage] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null);
  const [busy, setBusy] = useState(false);

  const loadDraft = useCallback(() => {
    api
      .call<TierDraft>('/tiers/draft')
      .then((r) => setDraft(r.data))
      .catch((e) => {
        if (e instanceof ApiError && e.status === 404) setDraft(null);
        else setError(e as ApiError);
      });
  }, [api]);

  useEffect(loadDraft, [loadDraft, reloadKey]);

  // The what-if follows the draft and the period, refreshed every 15 s while shadow counts.
  useEffect(() => {
    if (!draft) {
      setWhatIf(null);
      return;
    }
    let live = true;
    const read = () =>
      api
        .get<WhatIf>(`/tiers/draft/whatif?minutes=${minutes}`)
        .then((w) => live && setWhatIf(w))
        .catch((e) => live && setError(e as ApiError));
    read();
    const id = window.setInterval(read, 15_000);
    return () => {
      live = false;
      window.clearInterval(id);
    };
  }, [api, draft, minutes]);

  const act = async (what: () => Promise<void>) => {
    setBusy(true);
    setMessage(null);
    setError(null);
    try {
      await what();
    } finally {
      setBusy(false);
    }
  };

  const switchShadow = (on: boolean) =>
    act(async () => {
      try {
        setDraft(await api.send<TierDraft>('POST', '/tiers/draft/shadow', { on }));
        setMessage({ kind: 'ok', text: on ? 'Shadow on: every live request is now also decided against the draft, without effect on it.' : 'Shadow off.' });
      } catch (e) {
        setError(e as ApiError);
      }
    });

  const promote = () =>
    act(async () => {
      try {
        const r = await api.call<TiersDocument>('/tiers/draft/promote', { method: 'POST', headers: { 'If-Match': live.etag } });
        const doc = { ...r.data, etag: r.headers.get('ETag') ?? r.data.etag };
        setDraft(null);
        setMessage({ kind: 'ok', text: `Promoted: the draft is live as version ${doc.version}, and its shadow has ended.` });
        onPromoted(doc);
      } catch (e) {
        const err = e as ApiError;
        setMessage({ kind: 'error', text: promoteRefusal(err.status, err.message) });
      }
    });

  const remove = () =>
    act(async () => {
      try {
        await api.call('/tiers/draft', { method: 'DELETE', headers: draft ? { 'If-Match': draft.etag } : {} });
        setDraft(null);
        setMessage({ kind: 'ok', text: 'Draft deleted.' });
      } catch (e) {
        setError(e as ApiError);
      }
    });

  if (draft === undefined) return null;
  if (draft === null) {
    return (
      <section className="panel draft" aria-labelledby="draft-title">
        <h2 id="draft-title">Draft</h2>
        {message && <Notice kind={message.kind}>{message.text}</Notice>}
        {error && <ErrorNotice error={error} />}
        <p className="muted">
          No draft. <em>Save as draft</em> (from <em>Review changes</em>) keeps an edit aside without applying it; in shadow, it is decided against
          live traffic so you can see what it would do before promoting it.
        </p>
      </section>
    );
  }
  return (
    <section className="panel draft" aria-labelledby="draft-title">
      <h2 id="draft-title">Draft version {draft.version}</h2>
      <p className="muted">
        Saved by {draft.author} {relativeTime(draft.savedAt)} ({formatTime(draft.savedAt)}).{' '}
        <span className="shadow-state" role="status">
          {draft.shadow && draft.shadowSince ? `In shadow since ${formatTime(draft.shadowSince)} (${relativeTime(draft.shadowSince)}).` : 'Not in shadow.'}
        </span>
      </p>
      {message && <Notice kind={message.kind}>{message.text}</Notice>}
      {error && <ErrorNotice error={error} />}
      <div className="actions">
        <button type="button" onClick={() => switchShadow(!draft.shadow)} disabled={busy}>
          {draft.shadow ? 'Stop shadow' : 'Start shadow'}
        </button>
        <button type="button" className="primary" onClick={promote} disabled={busy}>
          Promote to live (version {live.version + 1})
        </button>
        <button type="button" onClick={() => onEdit(draft.yaml)} disabled={busy}>
          Edit the draft
        </button>
        <button type="button" onClick={remove} disabled={busy}>
          Delete draft
        </button>
      </div>
      <div className="draft-compare">
        <div>
          <h3>What changes</h3>
          <DiffView oldText={live.yaml} newText={draft.yaml} oldLabel={`live, version ${live.version}`} newLabel={`draft ${draft.version}`} />
        </div>
        <div className="whatif" aria-labelledby="whatif-title">
          <h3 id="whatif-title">What it would have done</h3>
          <label>
            Period{' '}
            <select value={minutes} onChange={(e) => setMinutes(Number(e.target.value))}>
              {PERIODS.map(([m, l]) => (
                <option key={m} value={m}>
                  {l}
                </option>
              ))}
            </select>
          </label>
          {whatIf === null ? <p className="muted">Reading…</p> : <WhatIfBody w={whatIf} />}
        </div>
      </div>
    </section>
  );
}

function WhatIfBody({ w }: { w: WhatIf }) {
  return (
    <>
      <p className="whatif-source" data-source={w.source}>
        {w.source === 'shadow' ? (
          <strong>From the shadow since {formatTime(w.from)}.</strong>
        ) : (
          <strong>Replay estimate (not exact): no shadow decisions yet.</strong>
        )}{' '}
        <span className="muted">{w.exactness}</span>
      </p>
      <p className="whatif-headline">{headline(w)}</p>
      <table className="whatif-totals">
        <caption>Requests, live against the draft</caption>
        <thead>
          <tr>
            <th scope="col">stage</th>
            <th scope="col">live</th>
            <th scope="col">draft</th>
            <th scope="col">change</th>
          </tr>
        </thead>
        <tbody>
          {stageRows(w).map((r) => (
            <tr key={r.stage} data-stage={r.stage}>
              <th scope="row">{r.label}</th>
              <td className="num">{r.live}</td>
              <td className="num">{r.draft}</td>
              <td className="num">{r.change}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <WhatIfChart whatIf={w} />
      <table className="whatif-tenants">
        <caption>The tenants most affected (refusals added, then downgrades): live → draft</caption>
        <thead>
          <tr>
            <th scope="col">tenant</th>
            <th scope="col">tier</th>
            {STAGES.map((s) => (
              <th scope="col" key={s}>
                {STAGE_LABELS[s]}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {w.tenants.length === 0 && (
            <tr>
              <td colSpan={2 + STAGES.length} className="muted">
                No tenant's decisions differ.
              </td>
            </tr>
          )}
          {w.tenants.map((t) => (
            <tr key={t.tenant}>
              <th scope="row">{t.tenant}</th>
              <td>{t.tier}</td>
              {STAGES.map((s) => (
                <td key={s} className="num" title={signedChange(t.live[s], t.draft[s])}>
                  {t.live[s]} → {t.draft[s]}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
