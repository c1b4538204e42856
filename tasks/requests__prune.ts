import { pruneRequestIds } from '../src/metering/requestIds.js';
import { cleanupTask } from '../src/task.js';

// Cron: frees the ids of claims that a process which died left running (see pruneRequestIds).
export default cleanupTask('requests__prune', (db) => pruneRequestIds(db), 'abandoned request id claims');
