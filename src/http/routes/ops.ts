import type { Pool } from '../../db/pool.js';
import { isFullyMigrated } from '../../db/migrate.js';
import type { Operations } from '../operations.js';

// Liveness and readiness for load balancers and orchestrators; no key needed.
export function opsRoutes(open: Operations, pool: Pool): void {
  open.add('healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });

  open.add('readyz', async (ctx) => {
    let database = false;
    let migrations = false;
    try {
      migrations = await isFullyMigrated(pool);
      database = true;
    } catch (err) {
      ctx.state.log.warn({ err }, 'readiness check failed');
    }
    const ready = database && migrations;
    ctx.status = ready ? 200 : 503;
    ctx.body = ready
      ? { status: 'ready' }
      : { message: 'not ready', checks: { database, migrations } };
  });
}
