import { useState, type FormEvent } from 'react';
import { EvidenceChart } from '../components/Charts';
import { FieldError, fieldErrorId } from '../components/FieldError';
import { TierSelect } from '../components/TierSelect';
import { Empty, ErrorNotice, Loading, Notice } from '../components/States';
import { ApiError, type FieldProblem } from '../lib/api';
import type { components } from '../lib/api-types';
import { formatTime, relativeTime } from '../lib/format';
import { useApiClient, useLoad } from '../lib/useApi';

type Review = Flag['reviews'][number];
export type Flag = components['schemas']['Flag'];
type TiersDoc = components['schemas']['TierDocument'];

const ACTION_WORDS: Record<string, string> = {
  dismiss: 'Dismissed',
  'confirm-suspend': 'Confirmed and suspended',
  'confirm-move-tier': 'Confirmed and moved',
  comment: 'Commented',
};

export function FlagsPage() {
  const [tab, setTab] = useState<'open' | 'history'>('open');
  const [open, reloadOpen] = useLoad<{ flags: Flag[] }>('/flags?status=open', 30_000);
  const [all, reloadAll] = useLoad<{ flags: Flag[] }>(tab === 'history' ? '/flags?status=all&limit=200' : null);
  const [tiers] = useLoad<TiersDoc>('/tiers');
  const [notice, setNotice] = useState<string | null>(null);
  const tierNames = tiers.data?.config ? Object.keys(tiers.data.config.tiers) : [];
  const threshold = tiers.data?.config?.abuse.threshold ?? 0.9;
  const openCount = open.data?.flags.length;

  return (
    <section aria-labelledby="flags-title">
      <div className="page-head">
        <h1 id="flags-title">Abuse flags</h1>
        <p className="muted">Accounts that sat at or above {Math.round(threshold * 100)}% of their ceiling for a long run of minutes, waiting for a person to decide.</p>
      </div>
      <div role="tablist" aria-label="Flags" className="tabs">
        <button type="button" role="tab" aria-selected={tab === 'open'} onClick={() => setTab('open')}>
          Review queue{openCount !== undefined ? ` (${openCount})` : ''}
        </button>
        <button type="button" role="tab" aria-selected={tab === 'history'} onClick={() => setTab('history')}>
          History of reviews
        </button>
      </div>
      {notice && <Notice kind="ok">{notice}</Notice>}
      {tab === 'open' && (
        <>
          {open.state === 'error' && <ErrorNotice error={open.error} retry={reloadOpen} what="the open flags" />}
          {open.state === 'loading' && !open.data && <Loading what="open flags" />}
          {open.data && open.data.flags.length === 0 && (
            <Empty title="Nothing to review.">No account is flagged. A flag opens when a tenant stays at its ceiling for the configured run of minutes.</Empty>
          )}
          {open.data?.flags.map((f) => (
            <FlagCard
              key={f.id}
              flag={f}
              tiers={tierNames}
              threshold={threshold}
              onDone={(msg) => {
                setNotice(msg);
                reloadOpen();
              }}
            />
          ))}
        </>
      )}
      {tab === 'history' && (
        <>
          {all.state === 'error' && <ErrorNotice error={all.error} retry={reloadAll} what="the review history" />}
          {all.state === 'loading' && !all.data && <Loading what="the review history" />}
          {all.data && <History flags={all.data.flags} />}
        </>
      )}
    </section>
  );
}

function FlagCard({ flag, tiers, threshold, onDone }: { flag: Flag; tiers: string[]; threshold: number; onDone: (msg: string) => void }) {
  const api = useApiClient();
  const [action, setAction] = useState<'dismiss' | 'confirm-suspend' | 'confirm-move-tier'>('dismiss');
  const [note, setNote] = useState('');
  const [tier, setTier] = useState('');
  const [problems, setProblems] = useState<FieldProblem[]>([]);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const otherTiers = tiers.filter((t) => t !== flag.tier);
  const moveTo = tier || otherTiers[0] || '';
  const base = `flag-${flag.id}`;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setProblems([]);
    setError(null);
    if (action === 'dismiss' && note.trim() === '') {
      setProblems([{ field: 'note', message: 'Say why you dismiss it, for whoever looks next.' }]);
      return;
    }
    setBusy(true);
    try {
      const body: Record<string, string> = { action, note: note.trim() };
      if (action === 'confirm-move-tier') body.tier = moveTo;
      await api.send('POST', `/flags/${encodeURIComponent(flag.id)}/review`, body);
      onDone(
        action === 'dismiss'
          ? `Flag on ${flag.tenant} dismissed.`
          : action === 'confirm-suspend'
            ? `Flag on ${flag.tenant} confirmed; ${flag.tenant} is suspended.`
            : `Flag on ${flag.tenant} confirmed; ${flag.tenant} moved to ${moveTo}.`,
      );
    } catch (err) {
      if (err instanceof ApiError && err.status === 422) setProblems(err.fields);
      else if (err instanceof ApiError && err.status === 409) {
        setError(new ApiError(409, err.code, `Someone else reviewed this flag first (${err.message}). The queue is reloaded.`));
        window.setTimeout(() => onDone(`The flag on ${flag.tenant} had already been reviewed.`), 2500);
      } else setError(err as ApiError);
    } finally {
      setBusy(false);
    }
  };
  const at = (f: string) => problems.filter((p) => p.field === f).map((p) => p.message).join('; ');

  return (
    <article className="card flag" aria-labelledby={`${base}-title`}>
      <h2 id={`${base}-title`}>
        {flag.tenant} <span className="badge">{flag.tier}</span>
      </h2>
      <p className="muted">
        Flagged {relativeTime(flag.openedAt)} ({formatTime(flag.openedAt)}): at or above {Math.round(threshold * 100)}% for {flag.runMinutes}{' '}
        consecutive minutes from {formatTime(flag.runStart)}.
      </p>
      <EvidenceChart points={flag.evidence} threshold={threshold} runStart={flag.runStart} runMinutes={flag.runMinutes} label={`Evidence for ${flag.tenant}`} />
      {flag.reviews.length > 0 && <ReviewList reviews={flag.reviews} />}
      <form onSubmit={submit} className="review-form" noValidate>
        {error && <ErrorNotice error={error} />}
        <fieldset>
          <legend>Decision</legend>
          {(
            [
              ['dismiss', 'Dismiss: legitimate use (note required)'],
              ['confirm-suspend', 'Confirm and suspend the tenant'],
              ['confirm-move-tier', 'Confirm and move the tenant to another tier'],
            ] as const
          ).map(([v, l]) => (
            <label key={v} className="radio">
              <input type="radio" name={`${base}-action`} value={v} checked={action === v} onChange={() => setAction(v)} /> {l}
            </label>
          ))}
        </fieldset>
        {action === 'confirm-move-tier' && (
          <div className={`field${at('tier') ? ' invalid' : ''}`}>
            <label htmlFor={`${base}-tier`}>Move to tier</label>
            <TierSelect id={`${base}-tier`} value={moveTo} tiers={otherTiers} onChange={setTier} invalid={!!at('tier')}
              describedBy={at('tier') ? fieldErrorId(`${base}-tier`) : undefined} />
            <FieldError id={fieldErrorId(`${base}-tier`)} messages={at('tier')} />
          </div>
        )}
        <div className={`field wide${at('note') ? ' invalid' : ''}`}>
          <label htmlFor={`${base}-note`}>Note {action === 'dismiss' ? '(required)' : '(optional)'}</label>
          <textarea
            id={`${base}-note`}
            rows={2}
            value={note}
            maxLength={2000}
            onChange={(e) => setNote(e.target.value)}
            aria-invalid={!!at('note') || undefined}
            aria-describedby={at('note') ? fieldErrorId(`${base}-note`) : undefined}
          />
          <FieldError id={fieldErrorId(`${base}-note`)} messages={at('note')} />
        </div>
        <button type="submit" className={action === 'dismiss' ? 'primary' : 'danger'} disabled={busy}>
          {busy ? 'Saving…' : action === 'dismiss' ? 'Dismiss flag' : action === 'confirm-suspend' ? `Confirm and suspend ${flag.tenant}` : `Confirm and move to ${moveTo}`}
        </button>
      </form>
    </article>
  );
}

function ReviewList({ reviews }: { reviews: Review[] }) {
  return (
    <ul className="reviews">
      {reviews.map((r, i) => (
        <li key={i}>
          <strong>{ACTION_WORDS[r.action] ?? r.action}</strong>
          {r.tier ? ` to ${r.tier}` : ''} by {r.by}, {relativeTime(r.at)} <span className="muted">({formatTime(r.at)})</span>
          {r.note && <q>{r.note}</q>}
        </li>
      ))}
    </ul>
  );
}

function History({ flags }: { flags: Flag[] }) {
  const reviewed = flags.filter((f) => f.reviews.length > 0 || f.status !== 'open');
  if (reviewed.length === 0) return <Empty title="No reviews yet.">Decisions on flags show here, with who made them, when and why.</Empty>;
  return (
    <table className="history">
      <thead>
        <tr>
          <th scope="col">Tenant</th>
          <th scope="col">Flagged</th>
          <th scope="col">Run</th>
          <th scope="col">Status</th>
          <th scope="col">Reviews</th>
        </tr>
      </thead>
      <tbody>
        {reviewed.map((f) => (
          <tr key={f.id}>
            <th scope="row">
              {f.tenant} <span className="badge">{f.tier}</span>
            </th>
            <td title={formatTime(f.openedAt)}>{relativeTime(f.openedAt)}</td>
            <td>{f.runMinutes} min</td>
            <td>
              <span className={`badge ${f.status === 'confirmed' ? 'bad' : f.status === 'open' ? '' : 'good'}`}>{f.status}</span>
            </td>
            <td>
              <ReviewList reviews={f.reviews} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
