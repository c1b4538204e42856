import type { Pool, Queryable } from '../db/pool.js';
import { MemoryEmbeddingFailed, MemoryEmbeddingNotAllowed } from '../errors.js';
import type { Catalog } from '../gateway/catalog.js';
import type { Adapters } from '../gateway/providers/index.js';
import { addJob } from '../jobs/registry.js';
import type { Logger } from '../logger.js';
import { float4Array } from './chunks.js';
import { embedForMemory, memoryEmbeddingModel, memoryEmbeddingPolicy } from './embedder.js';

// A search compares only vectors of the memory model, which a worker takes from its catalogue at
// start: after a switch (a MISTRAL_API_KEY set later, or taken away) what was embedded before would
// be found by its words alone. The memory__reembed job, queued at every worker start, embeds those
// chunks and facts again with the memory model of now, a batch at a time, until none is left.
// See docs/decisions/0028-memory-is-embedded-again-after-a-model-switch.md.

/** Rows embedded per round: one embedding call or a few (embedInParts splits by the model's batch size). */
export const REEMBED_BATCH = 64;

/** A job stops after this long and queues its successor, so that it never holds a worker slot for long. */
const ROUND_BUDGET_MS = 20_000;

const JOB_KEY = 'memory__reembed';

/** Queues the job (once: a pending one is replaced). Called by the worker at start. */
export async function queueReembedding(db: Queryable, skipWorkspaces: string[] = []): Promise<void> {
  await addJob(db, 'memory__reembed', { skip_workspaces: skipWorkspaces }, { jobKey: JOB_KEY });
}

interface StaleRow {
  id: string;
  workspace_id: string;
  text: string;
}

type Table = 'chunks' | 'facts';

// One statement per table, as fixed text: the table name is never built from a value. In key
// order from a cursor, so that each row is read once however many rounds the job takes.
const STALE_SQL: Record<Table, string> = {
  chunks: `select id::text, workspace_id, text from chunks
            where id > $4::bigint and model <> $1 and workspace_id <> all($2::uuid[]) order by id limit $3`,
  facts: `select id::text, workspace_id, content as text from facts
           where id > $4::uuid and model <> $1 and workspace_id <> all($2::uuid[]) order by id limit $3`,
};
const FIRST_KEY: Record<Table, string> = { chunks: '0', facts: '00000000-0000-0000-0000-000000000000' };
// The text is compared too: a fact rewritten meanwhile has another vector already, of the model of now.
const UPDATE_SQL: Record<Table, string> = {
  chunks: `update chunks c set model = $1, embedding = (($5::real[])[(u.ord - 1) * $6 + 1 : u.ord * $6])::vector
             from unnest($3::bigint[], $4::text[]) with ordinality as u(id, text, ord)
            where c.workspace_id = $2 and c.id = u.id and c.text = u.text and c.model <> $1`,
  facts: `update facts f set model = $1, embedding = (($5::real[])[(u.ord - 1) * $6 + 1 : u.ord * $6])::vector
            from unnest($3::uuid[], $4::text[]) with ordinality as u(id, text, ord)
           where f.workspace_id = $2 and f.id = u.id and f.content = u.text and f.model <> $1`,
};

export interface ReembedOutcome {
  chunks: number;
  facts: number;
  /** Workspaces whose memory cannot be embedded now (their policy, or a text the provider refuses): left for the next start. */
  skipped: string[];
  /** Whether rows are left that a next job would take. */
  more: boolean;
}

/**
 * Embeds stale chunks and facts again until none is left or the time budget is spent. A workspace
 * whose allowed providers leave no EU provider of the memory model is skipped (its memory stays
 * findable by its words), as is one with a text the provider refuses as invalid. Not billed: the
 * switch is the operator's, and the workspace paid for its memory once, when it was stored.
 */
export async function reembedMemory(
  deps: { db: Pool; catalog: Catalog; adapters: Adapters; log: Logger },
  skip: readonly string[],
  signal?: AbortSignal,
): Promise<ReembedOutcome> {
  const model = memoryEmbeddingModel(deps.catalog);
  const skipped = [...skip];
  const outcome: ReembedOutcome = { chunks: 0, facts: 0, skipped, more: false };
  const deadline = Date.now() + ROUND_BUDGET_MS;
  for (const table of ['chunks', 'facts'] as const) {
    let after = FIRST_KEY[table];
    for (;;) {
      const { rows } = await deps.db.query<StaleRow>(STALE_SQL[table], [model.id, skipped, REEMBED_BATCH, after]);
      if (rows.length === 0) break;
      after = rows.at(-1)!.id;
      if (Date.now() > deadline) {
        outcome.more = true;
        return outcome;
      }
      for (const [workspaceId, stale] of byWorkspace(rows)) {
        try {
          const policy = await memoryEmbeddingPolicy(deps.db, workspaceId);
          const embedded = await embedForMemory(deps.catalog, deps.adapters, stale.map((row) => row.text), signal, policy);
          const { rowCount } = await deps.db.query(UPDATE_SQL[table], [
            model.id,
            workspaceId,
            stale.map((row) => row.id),
            stale.map((row) => row.text),
            float4Array(embedded.vectors),
            embedded.vectors[0]!.length,
          ]);
          outcome[table] += rowCount ?? 0;
        } catch (err) {
          if (!(err instanceof MemoryEmbeddingNotAllowed || (err instanceof MemoryEmbeddingFailed && err.refusedText))) throw err;
          deps.log.warn({ workspace_id: workspaceId, reason: err.message }, 'memory of this workspace left as it is embedded');
          skipped.push(workspaceId);
        }
      }
    }
  }
  return outcome;
}

function byWorkspace(rows: StaleRow[]): Map<string, StaleRow[]> {
  const groups = new Map<string, StaleRow[]>();
  for (const row of rows) {
    const group = groups.get(row.workspace_id);
    if (group) group.push(row);
    else groups.set(row.workspace_id, [row]);
  }
  return groups;
}
