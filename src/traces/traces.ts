import type { Queryable } from '../db/pool.js';
import { landPendingSettlements } from '../metering/pendingSettlements.js';
import { findTraceDetail, type TraceDetailRow } from './store.js';

/**
 * One trace of the workspace, or undefined. Asked for right after its answer, the trace may still
 * be on its way (the drain writes it ~100 ms later): it is written first, then read. It is read
 * again whether or not this call wrote it: a drain that held it meanwhile has written it.
 */
export async function traceOf(db: Queryable, workspaceId: string, id: string): Promise<TraceDetailRow | undefined> {
  const trace = await findTraceDetail(db, workspaceId, id);
  if (trace) return trace;
  await landPendingSettlements(db, workspaceId, { requestId: id });
  return findTraceDetail(db, workspaceId, id);
}
