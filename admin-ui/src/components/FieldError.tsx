import type { FieldProblem } from '../lib/api';

/** The id a field's error gets, for the input's aria-describedby. */
export function fieldErrorId(fieldId: string): string {
  return `${fieldId}-err`;
}

/**
 * What is wrong with one form field, under it and announced (role=alert); nothing when all is
 * well. Takes the server's problems for the field (the first one's YAML line is shown) or
 * messages checked here.
 */
export function FieldError({ id, problems, messages }: { id?: string; problems?: FieldProblem[]; messages?: string | string[] }) {
  const texts = [...(problems ?? []).map((p) => p.message), ...(Array.isArray(messages) ? messages : messages ? [messages] : [])];
  if (texts.length === 0) return null;
  const line = problems?.[0]?.line;
  return (
    <span id={id} className="field-error" role="alert">
      {texts.join('; ')}
      {line ? ` (line ${line})` : ''}
    </span>
  );
}
