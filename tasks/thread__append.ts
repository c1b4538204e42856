import { appendToThreads, type ThreadAppend } from '../src/threads/store.js';
import { defineTask, payloadParser } from '../src/task.js';

const schema = {
  type: 'object',
  required: ['appends'],
  additionalProperties: false,
  properties: {
    appends: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['workspace_id', 'organization_id', 'thread', 'request_id', 'created_at', 'messages'],
        properties: {
          workspace_id: { type: 'string', minLength: 1 },
          organization_id: { type: 'string', minLength: 1 },
          thread: { type: 'string', minLength: 1, maxLength: 255 },
          request_id: { type: 'string', minLength: 1, maxLength: 255 },
          created_at: { type: 'string', minLength: 1 },
          messages: {
            type: 'array',
            items: { type: 'object', required: ['role'], properties: { role: { type: 'string' } } },
          },
        },
      },
    },
  },
};

// Messages of chat calls that named a thread: the request's new messages, then the reply.
export default defineTask({
  name: 'thread__append',
  parse: payloadParser<{ appends: ThreadAppend[] }>('thread__append', schema),
  async run({ appends }, { db, log }) {
    await appendToThreads(db, appends);
    log.debug({ appends: appends.length }, 'threads appended');
  },
});
