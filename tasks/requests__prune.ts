import { pruneRequestIds } from '../src/metering/requestIds.js';
import { defineTask } from '../src/task.js';

// Cron: drops the requests rows no retry needs any more (see pruneRequestIds), in bounded batches
// so that one run never holds long locks.
export default defineTask({
  name: 'requests__prune',
  parse: (raw: unknown) => {
    if (raw !== null && typeof raw !== 'object') throw new Error('requests__prune: payload must be an object');
    return {};
  },
  async run(_payload, { db, log }) {
    let deleted = 0;
    for (let batch = await pruneRequestIds(db); batch > 0; batch = await pruneRequestIds(db)) deleted += batch;
    if (deleted > 0) log.info({ deleted }, 'request ids no retry needs deleted');
  },
});
