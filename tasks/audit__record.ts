import { insertAuditEntries, type AuditEntry } from '../src/audit/store.js';
import { defineTask, payloadParser } from '../src/task.js';

const UUID = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';

const entrySchema = {
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

const schema = {
  type: 'object',
  required: ['entries'],
  additionalProperties: false,
  properties: { entries: { type: 'array', minItems: 1, maxItems: 10_000, items: entrySchema } },
};

// Audit entries: one for a single action, or all those of a group-committed batch of requests.
export default defineTask({
  name: 'audit__record',
  parse: payloadParser<{ entries: AuditEntry[] }>('audit__record', schema),
  async run({ entries }, { db, log }) {
    await insertAuditEntries(db, entries);
    log.debug({ entries: entries.length, actions: [...new Set(entries.map((e) => e.action))] }, 'audit entries written');
  },
});
