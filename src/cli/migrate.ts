import { createPool } from '../db/pool.js';
import { migrate } from '../db/migrate.js';
import { workerLogger } from '../jobs/registry.js';
import { createLogger } from '../logger.js';
import { configOrExit, databaseProblem } from '../process.js';

// Procfile `release`: applies pending migrations and graphile-worker's schema, then exits.
const config = configOrExit();
const log = createLogger(config.logLevel);
const pool = createPool(config.databaseUrl, 2, (err) => log.warn({ err }, 'database connection error'));
try {
  const applied = await migrate(pool, { workerLogger: workerLogger(log) });
  log.info({ applied: applied.map((m) => `${String(m.version).padStart(4, '0')}_${m.name}`) }, 'migrations done');
} catch (err) {
  // A database that is missing or out of reach is the operator's to fix: said plainly, no stack.
  const problem = databaseProblem(err, config.databaseUrl);
  if (problem) {
    log.fatal(`migration failed: ${problem}`);
    process.stderr.write(`polder: migrate: ${problem}\n`);
  } else {
    log.fatal({ err }, 'migration failed');
  }
  process.exitCode = 1;
} finally {
  await pool.end();
}
