import { useState } from 'react';

/** Copies `text`; says whether it worked (the clipboard needs a secure context or localhost). */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return (
    <>
      <button type="button" onClick={copy}>
        {label}
      </button>
      <span role="status" aria-live="polite" className="muted">
        {state === 'copied' ? ' Copied.' : state === 'failed' ? ' The browser refused; select the text and copy it.' : ''}
      </span>
    </>
  );
}
