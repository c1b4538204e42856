import { checkDatabaseConfigured } from './db/configured.js';
import { createPool } from './db/pool.js';
import { loadCatalog } from './gateway/catalog.js';
import { closeAdapters, createAdapters } from './gateway/providers/index.js';
import { cronItems, DELIVERY_TASKS, type TaskName } from './jobs/registry.js';
import { JobRunner } from './jobs/runner.js';
import { createLogger } from './logger.js';
import { serveMetrics, type MetricsListener } from './metrics.js';
import { configOrExit, onShutdown, startupFailure } from './process.js';
import { WorkerLiveness } from './jobs/liveness.js';
import { routeConsoleToLog } from './jobs/console.js';
import { queueReembedding } from './memory/reembed.js';

const config = configOrExit();
const log = createLogger(config.logLevel).child({ process: 'worker' });
// What graphile-worker writes to the console (console.trace of a worker's error) as pino JSON too.
routeConsoleToLog(log.child({ source: 'console' }));
// Webhook deliveries run beside the other jobs, in a pool of their own (DELIVERY_TASKS): as many
// as the other jobs, at least 4, since each mostly waits on a receiver.
const deliveryConcurrency = Math.max(4, config.workerConcurrency);
const pool = createPool(config.databaseUrl, config.workerConcurrency + deliveryConcurrency + 2, (err) =>
  log.warn({ err }, 'database connection error'),
);

await checkDatabaseConfigured(config.databaseUrl).catch((err: unknown) => startupFailure(log, err));

const catalog = (() => {
  try {
    return loadCatalog({ file: config.catalogFile });
  } catch (err) {
    return startupFailure(log, err);
  }
})();
const adapters = createAdapters();
// Heartbeats of this process's pool, and a sweep that frees the jobs of workers that died.
const liveness = new WorkerLiveness(pool, log).start();

const services = {
  db: pool,
  catalog,
  adapters,
  replayRetentionHours: config.replayRetentionHours,
  responsesRetentionDays: config.responsesRetentionDays,
  webhooks: { allowHttp: config.webhooksAllowHttp },
};
const isDelivery = (name: TaskName) => DELIVERY_TASKS.includes(name);
const runners = [
  new JobRunner({
    services,
    log,
    concurrency: config.workerConcurrency,
    only: (name) => !isDelivery(name),
    cron: cronItems(),
    events: liveness.eventsForRunner(),
    onAbandonedPools: (poolIds) => liveness.abandon(poolIds),
  }),
  new JobRunner({
    services,
    log: log.child({ pool: 'deliveries' }),
    concurrency: deliveryConcurrency,
    only: isDelivery,
    events: liveness.eventsForRunner(),
    onAbandonedPools: (poolIds) => liveness.abandon(poolIds),
  }),
];
// GET /metrics on METRICS_PORT when it is set (the job queue gauges and this process's own metrics);
// the worker has no other HTTP listener.
let metrics: MetricsListener | undefined;
if (config.metricsPort !== undefined) {
  try {
    metrics = await serveMetrics(config.metricsPort, pool, (err) => log.warn({ err }, 'metrics scrape failed'));
  } catch (err) {
    const taken = (err as NodeJS.ErrnoException).code === 'EADDRINUSE';
    startupFailure(
      log,
      taken
        ? new Error(`METRICS_PORT ${config.metricsPort} is already in use (listen EADDRINUSE; another Polder worker?); stop what holds it, or set METRICS_PORT to a free port`)
        : err,
    );
  }
  log.info({ port: metrics.port }, 'worker metrics listening');
}
// Signals are handled before the runner starts, so a stop that arrives during start-up (which waits
// for the database when it is away) is clean too.
onShutdown(log, 'worker', async () => {
  await Promise.all(runners.map((runner) => runner.stop()));
  await metrics?.close();
  await liveness.stop();
  await closeAdapters(adapters);
  await pool.end();
});

const started = await Promise.all(runners.map((runner) => runner.start()));
if (started.every(Boolean)) {
  log.info({ concurrency: config.workerConcurrency, delivery_concurrency: deliveryConcurrency }, 'worker running');
  // The memory model is this catalogue's: memory embedded by another is embedded again (memory/reembed.ts).
  await queueReembedding(pool).catch((err: unknown) => log.warn({ err }, 'could not queue memory__reembed; the next start will'));
}
