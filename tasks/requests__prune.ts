import { pruneRequestIds } from '../src/metering/requestIds.js';
import { cleanupTask } from '../src/task.js';

// Cron: drops the requests rows no retry needs any more (see pruneRequestIds).
export default cleanupTask('requests__prune', (db) => pruneRequestIds(db), 'request ids no retry needs');
