import type { Queryable } from '../db/pool.js';

// Writes of the chunks table (the searches are in search.ts).

export interface ChunkToStore {
  text: string;
  tokens: number;
  embedding: ArrayLike<number>;
}

export interface ChunkOwner {
  organizationId: string;
  workspaceId: string;
  collectionId: string;
  documentId: string;
}

const FLOAT4_OID = 700;

/**
 * Numbers as one Postgres float4[] in the binary wire format, which node-postgres sends as it is
 * for a Buffer parameter. A vector in text form is ~20 KB of decimals that this process has to
 * print and Postgres has to parse: that was 7 % of the ingest worker's CPU, more than embedding
 * with the local model (profiled with bench/memory.ts).
 */
export function float4Array(vectors: readonly ArrayLike<number>[]): Buffer {
  const count = vectors.reduce((sum, v) => sum + v.length, 0);
  const buffer = Buffer.allocUnsafe(20 + count * 8);
  let at = buffer.writeInt32BE(1, 0); // dimensions
  at = buffer.writeInt32BE(0, at); // no nulls
  at = buffer.writeInt32BE(FLOAT4_OID, at);
  at = buffer.writeInt32BE(count, at);
  at = buffer.writeInt32BE(1, at); // lower bound
  for (const vector of vectors) {
    for (let i = 0; i < vector.length; i += 1) {
      at = buffer.writeInt32BE(4, at);
      at = buffer.writeFloatBE(vector[i]!, at);
    }
  }
  return buffer;
}

/**
 * Replaces the document's chunks with these, in the caller's transaction: a retried job leaves
 * exactly one set, never two. The vectors travel as one flat binary float4[] (float4Array), each
 * chunk's slice cast to a vector.
 */
export async function replaceChunks(
  db: Queryable,
  owner: ChunkOwner,
  chunks: ChunkToStore[],
  { model, tsConfig }: { model: string; tsConfig: string },
): Promise<void> {
  await db.query('delete from chunks where document_id = $1', [owner.documentId]);
  if (chunks.length === 0) return;
  const dimensions = chunks[0]!.embedding.length;
  if (chunks.some((c) => c.embedding.length !== dimensions)) throw new Error('chunk embeddings differ in length');
  await db.query(
    `insert into chunks (organization_id, workspace_id, collection_id, document_id, position, text, token_count,
                         model, embedding, ts_config)
     select $1, $2, $3, $4, c.ord - 1, c.text, c.tokens, $5,
            (($9::real[])[(c.ord - 1) * $10 + 1 : c.ord * $10])::vector, $6::regconfig
       from unnest($7::text[], $8::int[]) with ordinality as c(text, tokens, ord)`,
    [
      owner.organizationId,
      owner.workspaceId,
      owner.collectionId,
      owner.documentId,
      model,
      tsConfig,
      chunks.map((c) => c.text),
      chunks.map((c) => c.tokens),
      float4Array(chunks.map((c) => c.embedding)),
      dimensions,
    ],
  );
}
