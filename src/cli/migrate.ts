import { loadConfig } from '../config.js';
import { createPool } from '../db/pool.js';
import { migrate } from '../db/migrate.js';
import { workerLogger } from '../jobs/registry.js';
import { createLogger } from '../logger.js';

// Procfile `release`: applies pending migrations and graphile-worker's schema, then exits.
const config = loadConfig();
const log = createLogger(config.logLevel);
const pool = createPool(config.databaseUrl, 2, (err) => log.warn({ err }, 'database connection error'));
try {
  const applied = await migrate(pool, { workerLogger: workerLogger(log) });
  log.info({ applied: applied.map((m) => `${String(m.version).padStart(4, '0')}_${m.name}`) }, 'migrations done');
} catch (err) {
  log.fatal({ err }, 'migration failed');
  process.exitCode = 1;
} finally {
  await pool.end();
}
