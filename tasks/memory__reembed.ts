import { defineTask, payloadParser } from '../src/jobs/task.js';
import { queueReembedding, reembedMemory } from '../src/memory/reembed.js';

const UUID = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

const schema = {
  type: 'object',
  required: ['skip_workspaces'],
  additionalProperties: false,
  properties: {
    // Workspaces whose memory cannot be embedded now, carried from one job to the next.
    skip_workspaces: { type: 'array', items: { type: 'string', pattern: UUID }, maxItems: 100_000 },
  },
};

// Embeds memory stored under another model again with the memory model of now (queued at every
// worker start); queues its successor while some is left.
export default defineTask({
  name: 'memory__reembed',
  parse: payloadParser<{ skip_workspaces: string[] }>('memory__reembed', schema),
  async run({ skip_workspaces }, { db, catalog, adapters, log }) {
    const outcome = await reembedMemory({ db, catalog, adapters, log }, skip_workspaces);
    if (outcome.chunks + outcome.facts > 0 || outcome.skipped.length > skip_workspaces.length) {
      log.info({ chunks: outcome.chunks, facts: outcome.facts, skipped_workspaces: outcome.skipped.length, more: outcome.more }, 'memory embedded again');
    }
    if (outcome.more) await queueReembedding(db, outcome.skipped);
  },
});
