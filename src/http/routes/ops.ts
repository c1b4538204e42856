import type { Pool } from '../../db/pool.js';
import { isFullyMigrated } from '../../db/migrate.js';
import type { Operations } from '../operations.js';

// Liveness and readiness for load balancers and orchestrators; no key needed.
const READY_TIMEOUT_MS = 2_000;
export function opsRoutes(open: Operations, pool: Pool): void {
  open.add('healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });

  open.add('readyz', async (ctx) => {
    let database = false;
    let migrations = false;
    // A database that does not answer is not ready: the check gives up after 2 s (an orchestrator
    // waits for an answer, and a hung primary gives none).
    let timer: NodeJS.Timeout | undefined;
    const unanswered = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error('the database did not answer within 2 s')), READY_TIMEOUT_MS);
    });
    const check = isFullyMigrated(pool);
    // Past the timeout its outcome is not waited for, and must not become an unhandled rejection.
    check.catch(() => undefined);
    try {
      migrations = await Promise.race([check, unanswered]);
      database = true;
    } catch (err) {
      ctx.state.log.warn({ err }, 'readiness check failed');
    } finally {
      clearTimeout(timer);
    }
    const ready = database && migrations;
    ctx.status = ready ? 200 : 503;
    // The spec's ReadinessStatus, both ways: a probe reads `status` and `checks` alike.
    ctx.body = ready
      ? { status: 'ok', checks: { database, migrations } }
      : { status: 'unavailable', message: 'not ready', checks: { database, migrations } };
  });
}
