import { insertAuditEntries, type AuditEntry } from '../src/audit/store.js';
import { auditEntrySchema } from '../src/audit/schema.js';
import { defineTask, payloadParser } from '../src/task.js';

const schema = {
  type: 'object',
  required: ['entries'],
  additionalProperties: false,
  properties: { entries: { type: 'array', minItems: 1, maxItems: 10_000, items: auditEntrySchema } },
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
