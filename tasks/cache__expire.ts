import { deleteExpiredResponses } from '../src/gateway/responseCache.js';
import { cleanupTask } from '../src/jobs/task.js';

// Cron: drops expired response-cache entries.
export default cleanupTask('cache__expire', (db) => deleteExpiredResponses(db), 'expired cache entries');
