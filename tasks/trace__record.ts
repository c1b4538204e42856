import { insertTraces, type TraceRecord } from '../src/traces/store.js';
import { defineTask, payloadParser } from '../src/task.js';

const schema = {
  type: 'object',
  required: ['traces'],
  additionalProperties: false,
  properties: {
    traces: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['workspace_id', 'organization_id', 'id', 'key_id', 'tags', 'attempts', 'status', 'latency_ms', 'credits', 'notes', 'sources', 'created_at'],
        properties: {
          workspace_id: { type: 'string', minLength: 1 },
          organization_id: { type: 'string', minLength: 1 },
          id: { type: 'string', minLength: 1, maxLength: 255 },
          tags: { type: 'array', items: { type: 'string' } },
          attempts: { type: 'array' },
          status: { type: 'integer' },
          latency_ms: { type: 'number', minimum: 0 },
          notes: { type: 'array', items: { type: 'string' } },
          sources: { type: 'array' },
          created_at: { type: 'string', minLength: 1 },
        },
      },
    },
  },
};

// Traces of one group-committed batch of requests.
export default defineTask({
  name: 'trace__record',
  parse: payloadParser<{ traces: TraceRecord[] }>('trace__record', schema),
  async run({ traces }, { db, log }) {
    await insertTraces(db, traces);
    log.debug({ traces: traces.length }, 'traces recorded');
  },
});
