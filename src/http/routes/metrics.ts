import type { Pool } from '../../db/pool.js';
import { metricsContentType, renderMetrics } from '../../metrics.js';
import type { AppRouter } from '../state.js';

// Prometheus scrapes this outside /v1 without a key, like /healthz: it carries no tenant data,
// only counts by route, provider, task and status.
export function metricsRoutes(router: AppRouter, { pool }: { pool: Pool }): void {
  router.get('/metrics', async (ctx) => {
    ctx.body = await renderMetrics(pool);
    ctx.set('Content-Type', metricsContentType);
  });
}
