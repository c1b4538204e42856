import Router from '@koa/router';
import Koa from 'koa';
import type { Config } from './config.js';
import type { Pool } from './db/pool.js';
import { errorMiddleware } from './errors.js';
import { warmUpFirewall } from './firewall/index.js';
import type { Catalog } from './gateway/catalog.js';
import { ChatService } from './gateway/chat.js';
import { EmbeddingService } from './gateway/embeddings.js';
import type { CacheKeyLookup } from './gateway/responseCache.js';
import type { Adapters } from './gateway/providers/index.js';
import { authenticate } from './http/middleware/auth.js';
import { refuseNul } from './http/middleware/refuseNul.js';
import { requestContext } from './http/middleware/requestContext.js';
import { auditLogRoutes } from './http/routes/auditLog.js';
import { keyRoutes } from './http/routes/keys.js';
import { metricsRoutes } from './http/routes/metrics.js';
import { scoreRoutes } from './http/routes/scores.js';
import { settingsRoutes } from './http/routes/settings.js';
import { traceRoutes } from './http/routes/traces.js';
import { usageRoutes } from './http/routes/usage.js';
import { webhookRoutes } from './http/routes/webhooks.js';
import { chatRoutes } from './http/routes/chat.js';
import { collectionRoutes } from './http/routes/collections.js';
import { documentRoutes } from './http/routes/documents.js';
import { embeddingRoutes } from './http/routes/embeddings.js';
import { factRoutes } from './http/routes/facts.js';
import { modelRoutes } from './http/routes/models.js';
import { openapiRoutes } from './http/routes/openapi.js';
import { consoleRoutes } from './http/routes/console.js';
import { opsRoutes } from './http/routes/ops.js';
import { threadRoutes } from './http/routes/threads.js';
import type { AppState } from './http/state.js';
import { Validator } from './http/validation.js';
import type { Logger } from './logger.js';
import type { GroupCommitter } from './metering/groupCommit.js';
import { LimitGate } from './limits/gate.js';
import type { ChangeTargets } from './tenancy/changes.js';
import { KeyResolver } from './tenancy/keys.js';

export interface AppDeps {
  config: Config;
  pool: Pool;
  log: Logger;
  catalog: Catalog;
  adapters: Adapters;
  committer: GroupCommitter;
  /** Answers most cache misses without a lookup (a CacheKeyFilter). */
  cacheKeys: CacheKeyLookup;
  keys?: KeyResolver;
  validator?: Validator;
  /** Rate limits and budgets; the web process passes its own to give its leases back at shutdown. */
  gate?: LimitGate;
}

/** What a web process's caches drop when another process announces a change (tenancy/changes.ts). */
export function changeTargets(keys: KeyResolver, gate: LimitGate): ChangeTargets {
  return {
    forgetKey: (id) => keys.forgetKey(id),
    forgetWorkspace: (id) => keys.forgetWorkspace(id),
    forgetOrganization: (id) => keys.forgetOrganization(id),
    forgetAllPrincipals: () => keys.forgetAllPrincipals(),
    forgetScopeLimits: () => gate.forgetScopeLimits(),
  };
}

/** Builds the Koa app: the middleware chain and every router. It does not listen; tests mount it. */
export function createApp(deps: AppDeps): Koa<AppState> {
  const keys = deps.keys ?? new KeyResolver(deps.pool);
  const validator = deps.validator ?? new Validator();
  const gate = deps.gate ?? new LimitGate(deps.pool, deps.log);
  // The firewall's name list, tables and code are readied here rather than on the first chat request.
  warmUpFirewall();

  const app = new Koa<AppState>();
  // Errors are answered and logged by errorMiddleware; Koa's own stderr printing would duplicate them.
  app.silent = true;
  app.use(requestContext(deps.log));
  app.use(errorMiddleware);

  const open = new Router<AppState>();
  opsRoutes(open, deps.pool);
  openapiRoutes(open);
  consoleRoutes(open);
  metricsRoutes(open, { pool: deps.pool });
  app.use(open.routes());

  const api = new Router<AppState>({ prefix: '/v1' });
  api.use(authenticate(keys));
  // After authentication: a caller without a key hears 401 whatever its URL holds.
  api.use(refuseNul);
  const services = {
    pool: deps.pool,
    catalog: deps.catalog,
    adapters: deps.adapters,
    committer: deps.committer,
    cacheKeys: deps.cacheKeys,
    gate,
  };
  const bodyLimitBytes = deps.config.bodyLimitBytes;
  chatRoutes(api, { chat: new ChatService({ ...services, firewallMaxChars: deps.config.firewallMaxChars }), validator, bodyLimitBytes });
  embeddingRoutes(api, { embeddings: new EmbeddingService(services), validator, bodyLimitBytes });
  modelRoutes(api, { catalog: deps.catalog });
  threadRoutes(api, { pool: deps.pool });
  factRoutes(api, { pool: deps.pool, catalog: deps.catalog, adapters: deps.adapters, validator, bodyLimitBytes });
  collectionRoutes(api, { pool: deps.pool, validator, bodyLimitBytes });
  documentRoutes(api, { pool: deps.pool, validator, bodyLimitBytes });
  auditLogRoutes(api, { pool: deps.pool, validator });
  usageRoutes(api, { pool: deps.pool, gate, validator });
  traceRoutes(api, { pool: deps.pool, validator });
  scoreRoutes(api, { pool: deps.pool, validator, bodyLimitBytes });
  settingsRoutes(api, { pool: deps.pool, catalog: deps.catalog, keys, gate, validator, bodyLimitBytes });
  keyRoutes(api, { pool: deps.pool, keys, validator, bodyLimitBytes });
  webhookRoutes(api, { pool: deps.pool, settings: { allowHttp: deps.config.webhooksAllowHttp }, validator, bodyLimitBytes });
  app.use(api.routes());
  app.use(api.allowedMethods({ throw: true }));

  return app;
}
