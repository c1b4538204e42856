import { pruneEvents } from '../src/webhooks/store.js';
import { cleanupTask } from '../src/jobs/task.js';

/** Events (and their deliveries) are kept this long: enough to look into a failure and re-send. */
export const WEBHOOK_RETENTION_DAYS = 30;

// Cron: deletes webhook events and their deliveries past WEBHOOK_RETENTION_DAYS (see pruneEvents).
export default cleanupTask('webhooks__prune', (db) => pruneEvents(db, WEBHOOK_RETENTION_DAYS), 'old webhook events');
