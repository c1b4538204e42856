import { insertUsage, type UsageRecord } from '../src/metering/usageStore.js';
import { defineTask, payloadParser } from '../src/task.js';

const credits = {
  type: 'object',
  required: ['base', 'services', 'total'],
  properties: { base: { type: 'number' }, services: { type: 'number' }, total: { type: 'number' } },
};

const schema = {
  type: 'object',
  required: ['records'],
  additionalProperties: false,
  properties: {
    records: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['organization_id', 'workspace_id', 'request_id', 'kind', 'model', 'prompt_tokens', 'completion_tokens', 'cached_tokens', 'credits', 'created_at'],
        properties: {
          organization_id: { type: 'string', minLength: 1 },
          workspace_id: { type: 'string', minLength: 1 },
          request_id: { type: 'string', minLength: 1, maxLength: 255 },
          kind: { enum: ['chat', 'embeddings', 'ingest'] },
          model: { type: 'string', minLength: 1 },
          provider: { type: ['string', 'null'] },
          prompt_tokens: { type: 'integer', minimum: 0 },
          completion_tokens: { type: 'integer', minimum: 0 },
          cached_tokens: { type: 'integer', minimum: 0 },
          credits,
          created_at: { type: 'string', minLength: 1 },
        },
      },
    },
  },
};

// Usage rows of one group-committed batch of requests.
export default defineTask({
  name: 'usage__record',
  parse: payloadParser<{ records: UsageRecord[] }>('usage__record', schema),
  async run({ records }, { db, log }) {
    const written = await insertUsage(db, records);
    log.debug({ records: records.length, written }, 'usage recorded');
  },
});
