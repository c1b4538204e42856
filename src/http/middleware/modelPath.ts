import type { Next } from 'koa';
import type { AppContext } from '../state.js';

const MODELS = '/v1/models/';

/**
 * Model ids hold a slash (vendor/name), and OpenAI's SDKs send an id as one path segment with the
 * slash percent-encoded (`client.models.retrieve('local/echo')` asks for /v1/models/local%2Fecho):
 * that is the same model as /v1/models/local/echo. Read with indexOf, not a regex over the path.
 */
export async function modelIdInOneSegment(ctx: AppContext, next: Next): Promise<void> {
  const path = ctx.path;
  if (path.startsWith(MODELS) && path.indexOf('/', MODELS.length) < 0) {
    const rest = path.slice(MODELS.length);
    const slash = rest.toLowerCase().indexOf('%2f');
    if (slash > 0) ctx.path = `${MODELS}${rest.slice(0, slash)}/${rest.slice(slash + 3)}`;
  }
  await next();
}
