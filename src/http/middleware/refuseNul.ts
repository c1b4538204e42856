import type { Next } from 'koa';
import { notFound, validationFailed, noFieldErrors, type FieldErrors } from '../../errors.js';
import type { AppContext } from '../state.js';

// Postgres stores no U+0000 (NUL) in text or jsonb: a NUL in anything a request names or sends
// would fail its statement, a 500, and inside a group commit every request of the batch. So it is
// refused where it comes in: in a path as a name nothing can have (404), in a query parameter or a
// JSON body as a field error (422).

export const NUL_MESSAGE = 'must not contain the NUL character (U+0000)';

/** The path and the query of a /v1 request; bodies are checked by jsonBody, which parses them. */
export async function refuseNul(ctx: AppContext, next: Next): Promise<void> {
  // Both are still percent-encoded here: a NUL can only arrive as %00.
  if (ctx.path.includes('%00')) throw notFound(`no route for ${ctx.method} ${ctx.path}`);
  if (ctx.querystring.includes('%00')) {
    const errors: FieldErrors = noFieldErrors();
    for (const [name, value] of Object.entries(ctx.query)) {
      if ([value ?? []].flat().some((v) => v.includes('\0'))) errors[name] = [NUL_MESSAGE];
    }
    if (Object.keys(errors).length > 0) throw validationFailed(errors);
  }
  await next();
}

/** The dotted paths (`messages.0.content`) of the strings and keys in `value` that hold a NUL. */
export function nulFieldErrors(value: unknown): FieldErrors | undefined {
  const errors: FieldErrors = noFieldErrors();
  const visit = (node: unknown, path: string) => {
    if (typeof node === 'string') {
      if (node.includes('\0')) errors[path || 'body'] = [NUL_MESSAGE];
    } else if (Array.isArray(node)) {
      node.forEach((item, index) => visit(item, path ? `${path}.${index}` : String(index)));
    } else if (node !== null && typeof node === 'object') {
      for (const [key, item] of Object.entries(node)) {
        if (key.includes('\0')) errors[path || 'body'] = [`has a key that ${NUL_MESSAGE}`];
        else visit(item, path ? `${path}.${key}` : key);
      }
    }
  };
  visit(value, '');
  return Object.keys(errors).length > 0 ? errors : undefined;
}
