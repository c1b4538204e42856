import type { AuditRow } from '../../audit/store.js';

export function presentAuditEntry(row: AuditRow) {
  return {
    id: row.id,
    at: row.at.toISOString(),
    actor: { key_id: row.actor_key_id, kind: row.actor_kind },
    action: row.action,
    target: row.target,
    details: row.details,
  };
}
