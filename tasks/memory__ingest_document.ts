import { ingestDocument } from '../src/memory/ingest.js';
import { defineTask, payloadParser } from '../src/jobs/task.js';

const UUID = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

const schema = {
  type: 'object',
  required: ['document_id', 'workspace_id'],
  additionalProperties: false,
  properties: {
    document_id: { type: 'string', pattern: UUID },
    workspace_id: { type: 'string', pattern: UUID },
  },
};

// Chunks, embeds and indexes one document (enqueued with it by POST /memory/documents).
export default defineTask({
  name: 'memory__ingest_document',
  parse: payloadParser<{ document_id: string; workspace_id: string }>('memory__ingest_document', schema),
  async run({ document_id, workspace_id }, { db, catalog, adapters, log, helpers }) {
    await ingestDocument(
      { db, catalog, adapters, log },
      {
        documentId: document_id,
        workspaceId: workspace_id,
        attempt: helpers.job.attempts,
        maxAttempts: helpers.job.max_attempts,
      },
    );
  },
});
