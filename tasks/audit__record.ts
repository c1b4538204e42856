import { insertAuditEntry, type AuditEntry } from '../src/audit/store.js';
import { defineTask, payloadParser } from '../src/task.js';

const UUID = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';

const schema = {
  type: 'object',
  required: ['event_id', 'organization_id', 'workspace_id', 'at', 'actor', 'action', 'target', 'details'],
  additionalProperties: false,
  properties: {
    event_id: { type: 'string', pattern: UUID },
    organization_id: { type: 'string', pattern: UUID },
    workspace_id: { type: 'string', pattern: UUID, nullable: true },
    at: { type: 'string', minLength: 1 },
    actor: {
      type: 'object',
      required: ['key_id', 'kind'],
      additionalProperties: false,
      properties: {
        key_id: { type: 'string', pattern: UUID, nullable: true },
        kind: { type: 'string', enum: ['organization', 'restricted', 'operator'] },
      },
    },
    action: { type: 'string', minLength: 1, maxLength: 100 },
    target: { type: 'string', nullable: true, maxLength: 1000 },
    details: { type: 'object', required: [], additionalProperties: true },
  },
};

export default defineTask({
  name: 'audit__record',
  parse: payloadParser<AuditEntry>('audit__record', schema),
  async run(entry, { db, log }) {
    await insertAuditEntry(db, entry);
    log.debug({ action: entry.action, event_id: entry.event_id }, 'audit entry written');
  },
});
