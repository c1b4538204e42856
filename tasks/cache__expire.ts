import { deleteExpiredResponses } from '../src/gateway/responseCache.js';
import { defineTask } from '../src/task.js';

// Cron: drops expired response-cache entries in bounded batches so one run never holds long locks.
export default defineTask({
  name: 'cache__expire',
  parse: (raw: unknown) => {
    if (raw !== null && typeof raw !== 'object') throw new Error('cache__expire: payload must be an object');
    return {};
  },
  async run(_payload, { db, log }) {
    let deleted = 0;
    for (let batch = await deleteExpiredResponses(db); batch > 0; batch = await deleteExpiredResponses(db)) deleted += batch;
    if (deleted > 0) log.info({ deleted }, 'expired cache entries deleted');
  },
});
