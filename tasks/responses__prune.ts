import { DEFAULT_RESPONSES_RETENTION_DAYS } from '../src/config.js';
import { pruneStoredResponses } from '../src/doors/responses/store.js';
import { cleanupTask } from '../src/jobs/task.js';

// Cron: deletes the responses the Responses door stored more than RESPONSES_RETENTION_DAYS ago.
export default cleanupTask(
  'responses__prune',
  (db, { responsesRetentionDays }) => pruneStoredResponses(db, responsesRetentionDays ?? DEFAULT_RESPONSES_RETENTION_DAYS),
  'stored responses past their retention',
);
