import { changeTargets, createApp } from './app.js';
import { checkDatabaseConfigured } from './db/configured.js';
import { createPool, WEB_QUERY_TIMEOUT_MS } from './db/pool.js';
import { ProcessPresence } from './db/presence.js';
import { CacheKeyFilter } from './gateway/cacheKeyFilter.js';
import { loadCatalog } from './gateway/catalog.js';
import { closeAdapters, createAdapters } from './gateway/providers/index.js';
import { CACHE_TTL_SECONDS } from './gateway/responseCache.js';
import { LimitGate } from './limits/gate.js';
import { ChangeListener } from './tenancy/changes.js';
import { KeyResolver } from './tenancy/keys.js';
import { GroupCommitter } from './metering/groupCommit.js';
import { createLogger } from './logger.js';
import { InFlight } from './http/middleware/inFlight.js';
import { createHttpServer } from './http/server.js';
import { configOrExit, onShutdown, startupFailure } from './process.js';

const config = configOrExit();
const log = createLogger(config.logLevel);

const catalog = (() => {
  try {
    return loadCatalog({ file: config.catalogFile });
  } catch (err) {
    return startupFailure(log, err);
  }
})();

await checkDatabaseConfigured(config.databaseUrl).catch((err: unknown) => startupFailure(log, err));

const pool = createPool(config.databaseUrl, 20, (err) => log.warn({ err }, 'database connection error'), { queryTimeoutMs: WEB_QUERY_TIMEOUT_MS });
const adapters = createAdapters();
const committer = new GroupCommitter(config.databaseUrl, { synchronousCommit: config.meteringSynchronousCommit, log });
// Until it is in sync every cacheable request looks up; it never throws and resyncs by itself.
const cacheKeys = new CacheKeyFilter({ connectionString: config.databaseUrl, log, ttlSeconds: CACHE_TTL_SECONDS, ownBackends: committer.backends });
await cacheKeys.start();
// This process's presence in Postgres, carried by the connection that listens for changes: others
// tell by it its request ids and credit leases from those of a process that died.
const presence = new ProcessPresence();
const gate = new LimitGate(pool, log, presence.key);
const keys = new KeyResolver(pool);
// Key, settings, acceptance and limit changes made by any process reach this one at once.
const changes = new ChangeListener({ connectionString: config.databaseUrl, log, presence }, changeTargets(keys, gate));
await changes.start();
const inFlight = new InFlight();
const app = createApp({ config, pool, log, catalog, adapters, committer, cacheKeys, gate, keys, inFlight, presence });
const server = createHttpServer(app);
// Longer than common load balancers' idle timeout, so they never reuse a socket we just closed.
server.keepAliveTimeout = 65_000;
server.headersTimeout = 66_000;

// A port already taken (EADDRINUSE) or not ours to take (EACCES) is a plain message and exit EX_CONFIG, as the worker's is.
const listenFailed = (err: NodeJS.ErrnoException) =>
  startupFailure(
    log,
    err.code === 'EADDRINUSE'
      ? new Error(`port ${config.port} is already in use (listen EADDRINUSE; another Polder web?); stop what holds it, or set PORT to a free port`)
      : err,
  );
server.once('error', listenFailed);
server.listen(config.port, () => {
  server.off('error', listenFailed);
  log.info({ port: config.port, catalog: catalog.file }, 'web listening');
});

onShutdown(log, 'web', async () => {
  // Stop accepting, let in-flight requests finish, drop idle keep-alive sockets, then the pool.
  // Requests still running after 10 s are stopped: a stream bills what it streamed and ends with
  // the door's error event, so that its client does not take the cut for a whole answer; what is
  // left 2 s later has its socket closed.
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  // A socket busy now is kept alive by its client, which would go on sending requests here until
  // the deadline cuts them: each answer from now on closes its socket (a stream's, whose headers
  // went out before, is closed once it is idle).
  inFlight.drain();
  const idleSweep = setInterval(() => server.closeIdleConnections(), 250);
  let forced: NodeJS.Timeout | undefined;
  const stopping = setTimeout(() => {
    inFlight.stop();
    forced = setTimeout(() => server.closeAllConnections(), 2_000);
  }, 10_000);
  await closed;
  clearInterval(idleSweep);
  clearTimeout(stopping);
  clearTimeout(forced);
  // Requests whose sockets were closed still record what they did (a cut stream is billed as 499).
  await inFlight.settled(5_000);
  // The gate after the group commit: what the last batches bill shrinks this process's leases
  // before the gate gives back the rest of them.
  await Promise.all([closeAdapters(adapters), committer.close().then(() => gate.close()), cacheKeys.close(), changes.close()]);
  await pool.end();
});
