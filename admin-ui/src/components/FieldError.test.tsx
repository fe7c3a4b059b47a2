import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { FieldError, fieldErrorId } from './FieldError';

describe('a field error', () => {
  it('says nothing when the field is fine', () => {
    expect(renderToStaticMarkup(<FieldError id="x-err" />)).toBe('');
    expect(renderToStaticMarkup(<FieldError id="x-err" problems={[]} messages="" />)).toBe('');
  });

  it('announces every problem of the field, with the YAML line of the first', () => {
    const html = renderToStaticMarkup(
      <FieldError id={fieldErrorId('free-tpm')} problems={[
        { field: 'tiers.free.tokens-per-minute', line: 4, message: 'must be positive' },
        { field: 'tiers.free.tokens-per-minute', message: 'must be a whole number' },
      ]} />,
    );
    expect(html).toBe('<span id="free-tpm-err" class="field-error" role="alert">must be positive; must be a whole number (line 4)</span>');
  });

  it('takes messages checked in the browser too', () => {
    expect(renderToStaticMarkup(<FieldError messages={['a', 'b']} />)).toBe('<span class="field-error" role="alert">a; b</span>');
    expect(renderToStaticMarkup(<FieldError messages="note: required" />)).toContain('>note: required</span>');
  });
});
