import { pruneRequestIds } from '../src/metering/requestIds.js';
import { cleanupTask } from '../src/jobs/task.js';

// Cron: frees the ids of claims that a process which died left running, and deletes the answers
// kept for replay past REPLAY_RETENTION_HOURS (see pruneRequestIds).
export default cleanupTask(
  'requests__prune',
  (db, { replayRetentionHours }) => pruneRequestIds(db, replayRetentionHours),
  'abandoned claims and expired replays',
);
