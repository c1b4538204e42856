import type { Next } from 'koa';
import { notFound, validationFailed, noFieldErrors, type FieldErrors } from '../../errors.js';
import type { AppContext } from '../state.js';

// Postgres stores no U+0000 (NUL) in text or jsonb: a NUL in anything a request names or sends
// would fail its statement, a 500, and inside a group commit every request of the batch. So it is
// refused where it comes in: in a path as a name nothing can have (404), in a query parameter or a
// JSON body as a field error (422).

export const NUL_MESSAGE = 'must not contain the NUL character (U+0000)';
// A lone UTF-16 surrogate (JSON's `\ud800` without its pair) is no character: stored as UTF-8 it
// becomes U+FFFD, and two end-users `sur\ud800` and `sur\udfff` would be one, erased together.
export const LONE_SURROGATE_MESSAGE = 'must not contain a lone UTF-16 surrogate (\\ud800–\\udfff without its pair): it is no character';

/** The path and the query of a /v1 request; bodies are checked by jsonBody, which parses them. */
export async function refuseNul(ctx: AppContext, next: Next): Promise<void> {
  // Both are still percent-encoded here: a NUL can only arrive as %00.
  if (ctx.path.includes('%00')) throw notFound(`no route for ${ctx.method} ${ctx.path}`);
  if (ctx.querystring.includes('%')) {
    // Percent-encoded bytes that are no UTF-8 (a lone surrogate's %ED%A0%80) decode to U+FFFD, and
    // "rep%ED%A0%80" and "rep%ED%BF%BF" would name one end-user; a U+FFFD sent encoded is kept.
    const sentReplacement = /%EF%BF%BD/i.test(ctx.querystring);
    const errors: FieldErrors = noFieldErrors();
    for (const [name, value] of Object.entries(ctx.query)) {
      const values = [value ?? []].flat();
      if (values.some((v) => v.includes('\0'))) errors[name] = [NUL_MESSAGE];
      else if (!sentReplacement && values.some((v) => v.includes('\uFFFD'))) errors[name] = [INVALID_UTF8_MESSAGE];
    }
    if (Object.keys(errors).length > 0) throw validationFailed(errors);
  }
  await next();
}

const INVALID_UTF8_MESSAGE = 'is not valid UTF-8 once percent-decoded (a lone surrogate, or a byte that starts no character)';

/**
 * The dotted paths (`messages.0.content`) of the strings and keys in `value` that hold what no text
 * column can keep: a NUL, or a lone surrogate.
 */
export function unstorableFieldErrors(value: unknown): FieldErrors | undefined {
  const errors: FieldErrors = noFieldErrors();
  const problemOf = (text: string) => (text.includes('\0') ? NUL_MESSAGE : text.isWellFormed() ? undefined : LONE_SURROGATE_MESSAGE);
  const visit = (node: unknown, path: string) => {
    if (typeof node === 'string') {
      const problem = problemOf(node);
      if (problem) errors[path || 'body'] = [problem];
    } else if (Array.isArray(node)) {
      node.forEach((item, index) => visit(item, path ? `${path}.${index}` : String(index)));
    } else if (node !== null && typeof node === 'object') {
      for (const [key, item] of Object.entries(node)) {
        const problem = problemOf(key);
        if (problem) errors[path || 'body'] = [`has a key that ${problem}`];
        else visit(item, path ? `${path}.${key}` : key);
      }
    }
  };
  visit(value, '');
  return Object.keys(errors).length > 0 ? errors : undefined;
}
