import { once } from 'node:events';
import type { Server } from 'node:http';
import { createHttpServer } from '../../src/http/server.js';
import type { AddressInfo } from 'node:net';
import type { Runner } from 'graphile-worker';
import type Koa from 'koa';
import { createApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { CacheKeyFilter } from '../../src/gateway/cacheKeyFilter.js';
import { loadCatalog, type Catalog } from '../../src/gateway/catalog.js';
import { CACHE_TTL_SECONDS } from '../../src/gateway/responseCache.js';
import { closeAdapters, createAdapters, type Adapters } from '../../src/gateway/providers/index.js';
import { startJobRunner, type JobRunner } from '../../src/jobs/runner.js';
import { GroupCommitter } from '../../src/metering/groupCommit.js';
import { createLogger, type Logger } from '../../src/logger.js';
import type { AppState } from '../../src/http/state.js';
import { createKey, type CreatedKey } from '../../src/tenancy/keys.js';
import type { KeyKind, Scope } from '../../src/tenancy/scopes.js';
import type { WebhookDeliveryOptions } from '../../src/webhooks/delivery.js';
import { createTestDatabase, type TestDatabase } from './db.js';

export interface TestApp {
  baseUrl: string;
  db: TestDatabase;
  config: Config;
  catalog: Catalog;
  adapters: Adapters;
  log: Logger;
  server: Server;
  /** The Koa app the server runs (its routers can be read). */
  app: Koa<AppState>;
  /** Creates a key in this test's database. */
  key(options?: { org?: string; workspace?: string; kind?: KeyKind; scopes?: Scope[] }): Promise<CreatedKey>;
  /**
   * Starts a real graphile-worker over tasks/ against this test's database; `webhooks` replaces
   * parts of the delivery options (a quick retry schedule, a short timeout).
   */
  startWorker(options?: { webhooks?: Partial<WebhookDeliveryOptions>; concurrency?: number }): Promise<Runner>;
  close(): Promise<void>;
}

export async function startTestApp(
  options: { env?: NodeJS.ProcessEnv; catalog?: Catalog; log?: Logger } = {},
): Promise<TestApp> {
  const db = await createTestDatabase();
  const config = loadConfig({ ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'silent', ...options.env });
  const log = options.log ?? createLogger(config.logLevel);
  const catalog = options.catalog ?? loadCatalog({ file: config.catalogFile });
  const adapters = createAdapters();
  const committer = new GroupCommitter(db.url, { synchronousCommit: config.meteringSynchronousCommit, log });
  const cacheKeys = new CacheKeyFilter({ connectionString: db.url, log, ttlSeconds: CACHE_TTL_SECONDS, ownBackends: committer.backends });
  await cacheKeys.start();
  const app = createApp({ config, pool: db.pool, log, catalog, adapters, committer, cacheKeys });
  const server = createHttpServer(app);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const runners: JobRunner[] = [];
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    db,
    config,
    catalog,
    adapters,
    log,
    server,
    app,
    key: ({ org = 'acme', workspace = 'main', kind = 'organization', scopes } = {}) =>
      createKey(db.pool, { organization: org, workspace, kind, ...(scopes ? { scopes } : {}) }),
    async startWorker({ webhooks = {}, concurrency = 2 } = {}) {
      const jobs = await startJobRunner({
        services: {
          db: db.pool,
          catalog,
          adapters,
          replayRetentionHours: config.replayRetentionHours,
          responsesRetentionDays: config.responsesRetentionDays,
          webhooks: { allowHttp: config.webhooksAllowHttp, ...webhooks },
        },
        log,
        concurrency,
        pollInterval: 50,
      });
      runners.push(jobs);
      return jobs.runner;
    },
    async close() {
      // The database goes even when something before it fails, so a failed test leaves none behind.
      try {
        for (const runner of runners) await runner.stop();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await Promise.all([closeAdapters(adapters), committer.close(), cacheKeys.close()]);
      } finally {
        await db.drop();
      }
    },
  };
}

export interface JsonResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/** fetch with JSON in and out; `key` becomes the bearer token. */
export async function api(
  baseUrl: string,
  path: string,
  { method = 'GET', key, body, raw, headers = {} }: { method?: string; key?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
): Promise<JsonResponse> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body !== undefined || raw !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    ...(raw !== undefined ? { body: raw } : body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}
