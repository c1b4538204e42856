import { extractSubmission } from '../src/memory/extraction.js';
import { defineTask, payloadParser } from '../src/jobs/task.js';

const schema = {
  type: 'object',
  required: ['submission_id'],
  additionalProperties: false,
  properties: {
    submission_id: { type: 'string', pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' },
  },
};

// A fact submission becomes facts (src/memory/extraction.ts). The payload names the submission
// only: its text stays in the one row an erasure deletes, never in the queue.
export default defineTask({
  name: 'memory__extract_facts',
  parse: payloadParser<{ submission_id: string }>('memory__extract_facts', schema),
  async run({ submission_id }, { db, catalog, adapters, log, helpers }) {
    const started = performance.now();
    const result = await extractSubmission(
      { db, catalog, adapters, signal: helpers.abortSignal },
      submission_id,
      { attempt: helpers.job.attempts, maxAttempts: helpers.job.max_attempts },
    );
    // Counts only: the facts themselves are personal data and stay out of the logs.
    log.info({ submission_id, ...result, ms: Math.round(performance.now() - started) }, 'fact submission extracted');
  },
});
