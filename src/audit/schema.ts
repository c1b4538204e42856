const UUID = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';

/** An AuditEntry as a job carries it; checked before it is written. */
export const auditEntrySchema = {
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
} as const;
