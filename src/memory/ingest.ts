import type { Pool } from '../db/pool.js';
import { tableSpans } from '../firewall/index.js';
import { withTransaction } from '../db/transaction.js';
import { recordDocumentFinished } from '../webhooks/events.js';
import type { Catalog, EmbeddingModel } from '../gateway/catalog.js';
import type { Adapters } from '../gateway/providers/index.js';
import { countTokens } from '../gateway/tokens.js';
import type { Logger } from '../logger.js';
import { serviceRequestId } from '../metering/requestIds.js';
import { serviceWorkRecords } from '../metering/serviceWork.js';
import { UsageMeter } from '../metering/usageLines.js';
import { writeRecordsNow } from '../metering/writeRecords.js';
import { ChunkLimitExceeded, chunkText, DEFAULT_CHUNK_TOKENS, DEFAULT_OVERLAP_TOKENS, type Chunk } from './chunker.js';
import { replaceChunks, type ChunkToStore } from './chunks.js';
import { claimDocument, markReady, markUnfinished } from './documents.js';
import {
  checkMemoryEmbeddingAllowed,
  embedForMemory,
  memoryEmbeddingModel,
  memoryEmbeddingPolicy,
} from './embedder.js';
import { MemoryEmbeddingFailed, MemoryEmbeddingNotAllowed } from '../errors.js';
import { textSearchConfig } from './textSearch.js';

// The ingest pipeline run by tasks/memory__ingest_document.ts:
// processing → chunk → embed in batches → one transaction (chunks, ready, usage, trace and audit
// entry) → ready.

/** A failure that a retry cannot fix: the document is marked failed at once. */
export class PermanentIngestError extends Error {
  override name = 'PermanentIngestError';
}

/** Texts per embedding call: bounds the memory of one call and the work lost to a failure. */
export const EMBED_BATCH = 64;
const MAX_ERROR_LENGTH = 300;

/**
 * What one document may cost a worker. Chunking is synchronous: while it runs, the worker's
 * other jobs (every tenant's) wait, and a process blocked for longer than STALE_MS (15 s,
 * src/jobs/liveness.ts) is taken for dead, its jobs run a second time elsewhere. Chunking is
 * linear, so the largest document the API takes is cut in well under a second, whatever its
 * shape; these bounds hold for whatever the linear work still turns out slow on, and fail the
 * document with a reason rather than run on.
 */
export interface IngestLimits {
  /** Wall-clock budget of the synchronous work (chunking), in milliseconds. */
  chunkingMs: number;
  /**
   * Chunks per document. A document of the largest size the API takes makes a few hundred at
   * most (100,000 characters of CJK text at one token each: about 230).
   */
  maxChunks: number;
}

export const DEFAULT_INGEST_LIMITS: IngestLimits = { chunkingMs: 5_000, maxChunks: 1_000 };

/** Chunk size for a model: about 512 tokens, never more than the model takes in one input. */
/** The least a chunk holds besides a table's header repeated over it. */
const MIN_CHUNK_TOKENS = 128;

export function chunkTokensFor(model: EmbeddingModel): number {
  return model.maxInputTokens > 0 ? Math.min(DEFAULT_CHUNK_TOKENS, model.maxInputTokens) : DEFAULT_CHUNK_TOKENS;
}

export interface IngestServices {
  db: Pool;
  catalog: Catalog;
  adapters: Adapters;
  log: Logger;
}

export interface IngestJob {
  documentId: string;
  workspaceId: string;
  /** This run's attempt (1-based) and the job's last one. */
  attempt: number;
  maxAttempts: number;
}

/**
 * Ingests one document. A failure marks the document failed (with a short reason) when it is
 * permanent or this was the last attempt; otherwise the document goes back to queued and the
 * error is rethrown for graphile-worker to retry with backoff.
 */
export async function ingestDocument(
  services: IngestServices,
  job: IngestJob,
  limits: IngestLimits = DEFAULT_INGEST_LIMITS,
): Promise<void> {
  const { db, catalog, adapters, log } = services;
  const document = await claimDocument(db, job.workspaceId, job.documentId);
  if (!document) {
    log.info({ document_id: job.documentId }, 'document deleted or already ready; nothing to ingest');
    return;
  }
  // Where the time goes, in the log line of each document (an operator's first question when
  // ingest is slow).
  const timings = { chunk: 0, embed: 0, store: 0 };
  const startedAt = performance.now();
  let mark = startedAt;
  const lap = (phase: keyof typeof timings) => {
    const at = performance.now();
    timings[phase] = Math.round((at - mark) * 10) / 10;
    mark = at;
  };
  try {
    let model: EmbeddingModel;
    try {
      model = memoryEmbeddingModel(catalog);
    } catch (err) {
      throw new PermanentIngestError((err as Error).message);
    }
    // The workspace's allowed providers, read now: a change made while the document was queued
    // applies to it. Checked before the chunking, which would be wasted.
    const policy = await memoryEmbeddingPolicy(db, job.workspaceId);
    checkMemoryEmbeddingAllowed(model, policy);
    const tsConfig = textSearchConfig(document.text);
    // A table's header goes over each chunk that starts among its rows: they are read by their
    // columns, by the firewall when a chunk is retrieved into a chat, and by the embedding.
    const tables = tableSpans(document.text).map((table) => ({ ...table, tokens: countTokens(table.header) + 1 }));
    const headerTokens = Math.max(0, ...tables.map((table) => table.tokens));
    const chunks = chunksWithin(document.text, Math.max(MIN_CHUNK_TOKENS, chunkTokensFor(model) - headerTokens), limits).map((chunk) => {
      const table = tables.find((t) => t.rowsStart <= chunk.start && chunk.start < t.end);
      return table === undefined ? chunk : { ...chunk, text: `${table.header}\n${chunk.text}`, tokens: chunk.tokens + table.tokens };
    });
    if (chunks.length === 0) throw new PermanentIngestError('the document has no text to index');
    const tokenCount = countTokens(document.text);
    lap('chunk');

    const stored: ChunkToStore[] = [];
    let embeddedTokens = 0;
    for (let i = 0; i < chunks.length; i += EMBED_BATCH) {
      const batch = chunks.slice(i, i + EMBED_BATCH);
      const embedded = await embedForMemory(catalog, adapters, batch.map((c) => c.text), undefined, policy);
      embeddedTokens += embedded.tokens;
      batch.forEach((chunk, j) => stored.push({ text: chunk.text, tokens: chunk.tokens, embedding: embedded.vectors[j]! }));
    }
    lap('embed');
    const owner = { organizationId: document.organization_id, workspaceId: document.workspace_id };
    const id = serviceRequestId('ingest', document.id);
    // The embedding tokens at the model's price, and the ingest fee per chunk.
    const usage = new UsageMeter()
      .add(model, null, { prompt: embeddedTokens, completion: 0 })
      .lines(owner, 'ingest', id, { services: chunks.length * catalog.services.ingestPerChunk });

    const written = await withTransaction(db, async (client) => {
      const ready = { chunkCount: stored.length, tokenCount, tsConfig };
      if (!(await markReady(client, job.workspaceId, document.id, ready))) return false;
      await recordDocumentFinished(client, job.workspaceId, document.id);
      await replaceChunks(
        client,
        {
          organizationId: document.organization_id,
          workspaceId: document.workspace_id,
          collectionId: document.collection_id,
          documentId: document.id,
        },
        stored,
        { model: model.id, tsConfig },
      );
      // Billed in the same transaction as the chunks: unique per request id, so a rerun of a
      // job whose commit succeeded (but whose completion was lost) cannot bill twice.
      await writeRecordsNow(
        client,
        serviceWorkRecords({
          owner,
          kind: 'ingest',
          id,
          action: 'document.ingested',
          target: document.id,
          usage,
          model: model.id,
          startedAt,
          input: { document_id: document.id },
          output: { chunks: stored.length, tokens: tokenCount },
        }),
      );
      return true;
    });
    lap('store');
    if (written) log.info({ document_id: document.id, chunks: stored.length, tokens: tokenCount, ms: timings }, 'document ready');
    else log.info({ document_id: document.id }, 'document deleted during ingest; nothing stored');
  } catch (err) {
    const reason = shortReason(err);
    const final =
      err instanceof PermanentIngestError ||
      err instanceof MemoryEmbeddingNotAllowed ||
      (err instanceof MemoryEmbeddingFailed && err.refusedText) ||
      job.attempt >= job.maxAttempts;
    if (final) {
      await withTransaction(db, async (client) => {
        const failed = { status: 'failed', error: reason } as const;
        if (await markUnfinished(client, job.workspaceId, document.id, failed)) await recordDocumentFinished(client, job.workspaceId, document.id);
      });
      log.warn({ document_id: document.id, err }, 'document ingest failed');
      return;
    }
    await markUnfinished(db, job.workspaceId, document.id, { status: 'queued', error: `attempt ${job.attempt} of ${job.maxAttempts} failed, retrying: ${reason}` });
    throw err;
  }
}

/** The document's chunks, or a permanent failure that says which limit the document passed. */
function chunksWithin(text: string, maxTokens: number, limits: IngestLimits): Chunk[] {
  try {
    return chunkText(text, {
      maxTokens,
      overlapTokens: DEFAULT_OVERLAP_TOKENS,
      timeBudgetMs: limits.chunkingMs,
      maxChunks: limits.maxChunks,
    });
  } catch (err) {
    if (!(err instanceof ChunkLimitExceeded)) throw err;
    // Another attempt would spend the same again: the document fails now.
    throw new PermanentIngestError(
      err.limit === 'time'
        ? `the document took more than ${limits.chunkingMs / 1000} s to cut into chunks; split it into smaller documents`
        : `the document makes more than ${limits.maxChunks} chunks, the limit per document; split it into smaller documents`,
    );
  }
}

/** The caller reads this in the document's `error`: one line, no stack, bounded. */
function shortReason(err: unknown): string {
  const message = (err instanceof Error ? err.message : String(err)).split('\n')[0]!.trim() || 'ingest failed';
  return message.length > MAX_ERROR_LENGTH ? `${message.slice(0, MAX_ERROR_LENGTH - 1)}…` : message;
}
