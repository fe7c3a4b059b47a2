import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { TierSelect } from './TierSelect';

const options = (html: string) => [...html.matchAll(/<option value="([^"]*)"( selected="")?>/g)].map((m) => (m[2] ? `*${m[1]}` : m[1]));

describe('the tier select', () => {
  it('lists the tiers and selects the value', () => {
    const html = renderToStaticMarkup(<TierSelect id="t" value="pro" tiers={['enterprise', 'pro', 'free']} onChange={() => {}} />);
    expect(options(html)).toEqual(['enterprise', '*pro', 'free']);
    expect(html).toContain('<select id="t">');
  });

  it('keeps a tier the document no longer has, rather than show another one', () => {
    const html = renderToStaticMarkup(<TierSelect id="t" value="legacy" tiers={['pro', 'free']} onChange={() => {}} />);
    expect(options(html)).toEqual(['*legacy', 'pro', 'free']);
  });

  it('says when it is invalid and where its error is, and can be disabled', () => {
    const html = renderToStaticMarkup(<TierSelect id="t" value="pro" tiers={['pro']} onChange={() => {}} invalid describedBy="t-err" disabled />);
    expect(html).toContain('disabled=""');
    expect(html).toContain('aria-invalid="true"');
    expect(html).toContain('aria-describedby="t-err"');
  });
});
