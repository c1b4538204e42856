import { reclaimLeases } from '../src/limits/store.js';
import { cleanupTask } from '../src/jobs/task.js';

// Cron: gives back the credit leases of web processes that died without giving them back (not
// seen for two minutes; a running one marks itself every 15 s), so a budget is not held by a
// process that is gone until its day or month ends (sql/0033).
export const UNSEEN_HOLDER_SECONDS = 120;

export default cleanupTask(
  'limits__reclaim',
  (db) => reclaimLeases(db, { unseenSeconds: UNSEEN_HOLDER_SECONDS }),
  'credit leases of stopped web processes',
);
