import type { Pool } from '../../db/pool.js';
import { metricsContentType, renderMetrics } from '../../metrics.js';
import type { Operations } from '../operations.js';

// Prometheus scrapes this outside /v1 without a key, like /healthz: it carries no tenant data,
// only counts by route, provider, task and status.
export function metricsRoutes(open: Operations, { pool }: { pool: Pool }): void {
  open.add('metrics', async (ctx) => {
    ctx.body = await renderMetrics(pool);
    ctx.set('Content-Type', metricsContentType);
  });
}
