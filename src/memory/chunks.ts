import type { Queryable } from '../db/pool.js';

// Writes of the chunks table (the searches are in search.ts).

export interface ChunkToStore {
  text: string;
  tokens: number;
  embedding: number[];
}

export interface ChunkOwner {
  organizationId: string;
  workspaceId: string;
  collectionId: string;
  documentId: string;
}

/**
 * Replaces the document's chunks with these, in the caller's transaction: a retried job leaves
 * exactly one set, never two. Vectors travel in pgvector's text form, which is a JSON array.
 */
export async function replaceChunks(
  db: Queryable,
  owner: ChunkOwner,
  chunks: ChunkToStore[],
  { model, tsConfig }: { model: string; tsConfig: string },
): Promise<void> {
  await db.query('delete from chunks where document_id = $1', [owner.documentId]);
  if (chunks.length === 0) return;
  await db.query(
    `insert into chunks (organization_id, workspace_id, collection_id, document_id, position, text, token_count,
                         model, embedding, ts_config)
     select $1, $2, $3, $4, c.position, c.text, c.tokens, $5, c.embedding::vector, $6::regconfig
       from unnest($7::int[], $8::text[], $9::int[], $10::text[]) as c(position, text, tokens, embedding)`,
    [
      owner.organizationId,
      owner.workspaceId,
      owner.collectionId,
      owner.documentId,
      model,
      tsConfig,
      chunks.map((_, i) => i),
      chunks.map((c) => c.text),
      chunks.map((c) => c.tokens),
      chunks.map((c) => JSON.stringify(c.embedding)),
    ],
  );
}
