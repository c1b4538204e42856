import type { Queryable } from '../db/pool.js';
import { writeRecordsNow } from '../metering/writeRecords.js';
import type { Principal } from '../tenancy/store.js';
import type { AuditEntry } from './store.js';

/** The organization, workspace and actor of an entry about what a key did. */
export function actedBy(principal: Principal): Pick<AuditEntry, 'organization_id' | 'workspace_id' | 'actor'> {
  return {
    organization_id: principal.organizationId,
    workspace_id: principal.workspaceId,
    actor: { key_id: principal.keyId, kind: principal.kind },
  };
}

export function auditEntry(entry: Omit<AuditEntry, 'at'> & { at?: string }): AuditEntry {
  return { ...entry, at: entry.at ?? new Date().toISOString() };
}

/**
 * Writes an audit entry in the caller's transaction: there is no change without its entry, nor an
 * entry of a change that rolled back, and the audit log shows it as soon as the change is answered.
 */
export async function recordAudit(db: Queryable, entry: Omit<AuditEntry, 'at'> & { at?: string }): Promise<void> {
  await writeRecordsNow(db, { audit: auditEntry(entry) });
}
