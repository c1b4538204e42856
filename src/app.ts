import Router from '@koa/router';
import Koa from 'koa';
import type { Config } from './config.js';
import type { Pool } from './db/pool.js';
import type { ProcessPresence } from './db/presence.js';
import { errorMiddleware } from './errors.js';
import { warmUpFirewall } from './firewall/index.js';
import type { Catalog } from './gateway/catalog.js';
import { ChatService } from './gateway/chat.js';
import { EmbeddingService } from './gateway/embeddings.js';
import type { CacheKeyLookup } from './gateway/responseCache.js';
import type { Adapters } from './gateway/providers/index.js';
import { authenticate } from './http/middleware/auth.js';
import { cors } from './http/middleware/cors.js';
import { refuseNul } from './http/middleware/refuseNul.js';
import { modelIdInOneSegment } from './http/middleware/modelPath.js';
import type { InFlight } from './http/middleware/inFlight.js';
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
import { anthropicErrorShape, messagesRoutes } from './http/routes/messages.js';
import { responsesRoutes } from './http/routes/responses.js';
import { ResponsesDoor } from './doors/responses/door.js';
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
import { Operations } from './http/operations.js';
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
  /** The web process's count of requests being handled, which its shutdown waits for. */
  inFlight?: InFlight;
  /**
   * The web process's presence in Postgres: a retry of a request id its claims hold runs anew once
   * the process died. Without it (tests' apps) such a retry waits for the claim's prune.
   */
  presence?: ProcessPresence;
}

/** What a web process's caches drop when another process announces a change (tenancy/changes.ts). */
export function changeTargets(keys: KeyResolver, gate: LimitGate): ChangeTargets {
  return {
    forgetKey: (id) => keys.forgetKey(id),
    forgetWorkspace: (id) => keys.forgetWorkspace(id),
    forgetOrganization: (id) => keys.forgetOrganization(id),
    forgetAllPrincipals: () => keys.forgetAllPrincipals(),
    forgetScopeLimits: () => gate.forgetScopeLimits(),
    recallLeases: (recall) => gate.giveBackRecalled(recall),
    leasesReturned: (answer) => gate.recallAnswered(answer),
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
  if (deps.inFlight) app.use(deps.inFlight.middleware);
  app.use(requestContext(deps.log, deps.presence?.key));
  app.use(errorMiddleware);
  app.use(cors);

  const bodyLimitBytes = deps.config.bodyLimitBytes;
  const open = new Router<AppState>();
  const openOperations = new Operations(open, validator, bodyLimitBytes);
  opsRoutes(openOperations, deps.pool);
  openapiRoutes(openOperations);
  metricsRoutes(openOperations, { pool: deps.pool });
  // The console's pages and files are not API operations (not in the spec).
  consoleRoutes(open);
  app.use(open.routes());

  const api = new Router<AppState>({ prefix: '/v1' });
  api.use(authenticate(keys));
  // After authentication: a caller without a key hears 401 whatever its URL holds.
  api.use(refuseNul);
  const operations = new Operations(api, validator, bodyLimitBytes, '/v1');
  const services = {
    pool: deps.pool,
    catalog: deps.catalog,
    adapters: deps.adapters,
    committer: deps.committer,
    cacheKeys: deps.cacheKeys,
    gate,
  };
  const chat = new ChatService({ ...services, firewallMaxChars: deps.config.firewallMaxChars });
  chatRoutes(operations, { chat });
  messagesRoutes(operations, { chat, catalog: deps.catalog, firewallMaxChars: deps.config.firewallMaxChars });
  responsesRoutes(operations, { door: new ResponsesDoor({ chat, pool: deps.pool, validator, catalog: deps.catalog }) });
  embeddingRoutes(operations, { embeddings: new EmbeddingService(services) });
  modelRoutes(operations, { catalog: deps.catalog });
  threadRoutes(operations, { pool: deps.pool });
  factRoutes(operations, { pool: deps.pool, catalog: deps.catalog, adapters: deps.adapters, gate });
  collectionRoutes(operations, { pool: deps.pool });
  documentRoutes(operations, { pool: deps.pool, catalog: deps.catalog, gate });
  auditLogRoutes(operations, { pool: deps.pool });
  usageRoutes(operations, { pool: deps.pool, gate });
  traceRoutes(operations, { pool: deps.pool });
  scoreRoutes(operations, { pool: deps.pool });
  settingsRoutes(operations, { pool: deps.pool, catalog: deps.catalog, keys, gate });
  keyRoutes(operations, { pool: deps.pool, keys });
  webhookRoutes(operations, { pool: deps.pool, settings: { allowHttp: deps.config.webhooksAllowHttp } });
  app.use(anthropicErrorShape);
  app.use(modelIdInOneSegment);
  app.use(api.routes());
  app.use(api.allowedMethods());

  return app;
}
