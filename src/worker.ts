import { run } from 'graphile-worker';
import { createPool } from './db/pool.js';
import { loadCatalog } from './gateway/catalog.js';
import { closeAdapters, createAdapters } from './gateway/providers/index.js';
import { buildTaskList, cronItems, workerLogger } from './jobs.js';
import { createLogger } from './logger.js';
import { configOrExit, onShutdown, startupFailure } from './process.js';

const config = configOrExit();
const log = createLogger(config.logLevel).child({ process: 'worker' });
const pool = createPool(config.databaseUrl, config.workerConcurrency + 2, (err) =>
  log.warn({ err }, 'database connection error'),
);

const catalog = (() => {
  try {
    return loadCatalog({ file: config.catalogFile });
  } catch (err) {
    return startupFailure(log, err);
  }
})();
const adapters = createAdapters();

const runner = await run({
  pgPool: pool,
  concurrency: config.workerConcurrency,
  taskList: buildTaskList({ db: pool, catalog, adapters }, log),
  logger: workerLogger(log),
  noHandleSignals: true,
  // Recurring jobs are declared in code; no crontab file is read.
  parsedCronItems: cronItems(),
});
log.info({ concurrency: config.workerConcurrency }, 'worker running');

onShutdown(log, 'worker', async () => {
  // stop() lets running jobs finish before it resolves.
  await runner.stop();
  await closeAdapters(adapters);
  await pool.end();
});
