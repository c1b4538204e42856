import { Ajv, type ValidateFunction } from 'ajv';
import { auditEntrySchema } from '../src/audit/schema.js';
import { insertAuditEntries } from '../src/audit/store.js';
import { withTransaction } from '../src/db/transaction.js';
import type { PoolClient } from '../src/db/pool.js';
import {
  deletePendingSettlements,
  lockPendingSettlements,
  markPendingSettlementFailed,
  type PendingSettlement,
  type SettlementParts,
} from '../src/metering/pendingSettlements.js';
import type { Logger } from '../src/logger.js';
import { insertUsage } from '../src/metering/usageStore.js';
import { defineTask, noPayload } from '../src/task.js';
import { appendToThreads } from '../src/threads/store.js';
import { insertTraces } from '../src/traces/store.js';

// Moves what settled requests left in pending_settlements into usage, traces, audit_log and
// thread_messages: a batch at a time, each in one transaction with the rows' deletion, until none
// is left. Every write is idempotent (usage per workspace + request id, traces per id, audit per
// event id, thread messages per request + position), so a retried job writes nothing twice.

const BATCH = 500;

const credits = {
  type: 'object',
  required: ['base', 'services', 'total'],
  properties: { base: { type: 'number' }, services: { type: 'number' }, total: { type: 'number' } },
};

const usageSchema = {
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
};

const traceSchema = {
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
    credits,
    notes: { type: 'array', items: { type: 'string' } },
    sources: { type: 'array' },
    created_at: { type: 'string', minLength: 1 },
  },
};

const threadSchema = {
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
};

const ajv = new Ajv({ allErrors: true });
const nullable = (schema: object) => ajv.compile({ anyOf: [{ type: 'null' }, schema] });
const checks: Record<'usage' | 'trace' | 'audit' | 'thread', ValidateFunction> = {
  usage: nullable(usageSchema),
  trace: nullable(traceSchema),
  audit: ajv.compile(auditEntrySchema),
  thread: nullable(threadSchema),
};

type Settlement = SettlementParts & { id: string };

/** The rows are this job's real input: each is checked as a job payload would be. */
function check(row: PendingSettlement): { settlement: Settlement } | { error: string } {
  for (const [part, validate] of Object.entries(checks)) {
    if (!validate(row[part as keyof typeof checks])) {
      const reasons = (validate.errors ?? []).map((e) => `${part}${e.instancePath} ${e.message ?? 'is invalid'}`);
      return { error: `invalid pending settlement: ${reasons.join('; ')}` };
    }
  }
  return { settlement: row as Settlement };
}

/** Writes every part of the settlements, then deletes their rows. */
async function write(db: PoolClient, settlements: Settlement[]): Promise<void> {
  if (settlements.length === 0) return;
  const usage = settlements.flatMap((s) => (s.usage ? [s.usage] : []));
  const traces = settlements.flatMap((s) => (s.trace ? [s.trace] : []));
  const threads = settlements.flatMap((s) => (s.thread ? [s.thread] : []));
  if (usage.length > 0) await insertUsage(db, usage);
  if (traces.length > 0) await insertTraces(db, traces);
  await insertAuditEntries(db, settlements.map((s) => s.audit));
  if (threads.length > 0) await appendToThreads(db, threads);
  await deletePendingSettlements(db, settlements.map((s) => s.id));
}

/**
 * Writes a batch in the caller's transaction and deletes its rows. When the batch fails, its rows
 * are written one by one, each under its own savepoint, and those that fail alone are set aside:
 * one bad row must not hold back everyone's usage.
 */
async function writeBatch(tx: PoolClient, settlements: Settlement[], log: Logger): Promise<{ written: number; failed: number }> {
  try {
    await withSavepoint(tx, () => write(tx, settlements));
  } catch (batchErr) {
    log.warn({ err: batchErr, rows: settlements.length }, 'settlement batch failed; writing its rows one by one');
    let failed = 0;
    for (const settlement of settlements) {
      try {
        await withSavepoint(tx, () => write(tx, [settlement]));
      } catch (rowErr) {
        failed += 1;
        log.error({ err: rowErr, pending_settlement: settlement.id }, 'pending settlement could not be written');
        await markPendingSettlementFailed(tx, settlement.id, (rowErr as Error).message);
      }
    }
    return { written: settlements.length - failed, failed };
  }
  return { written: settlements.length, failed: 0 };
}

async function withSavepoint(tx: PoolClient, work: () => Promise<void>): Promise<void> {
  await tx.query('savepoint settlements');
  try {
    await work();
    await tx.query('release savepoint settlements');
  } catch (err) {
    await tx.query('rollback to savepoint settlements');
    throw err;
  }
}

export default defineTask({
  name: 'settlements__drain',
  parse: noPayload('settlements__drain'),
  async run(_payload, { db, log }) {
    let written = 0;
    let failed = 0;
    for (;;) {
      const taken = await withTransaction(db, async (tx) => {
        const rows = await lockPendingSettlements(tx, BATCH);
        const good: Settlement[] = [];
        for (const row of rows) {
          const checked = check(row);
          if ('settlement' in checked) {
            good.push(checked.settlement);
            continue;
          }
          failed += 1;
          log.error({ pending_settlement: row.id, error: checked.error }, 'pending settlement rejected');
          await markPendingSettlementFailed(tx, row.id, checked.error);
        }
        const outcome = await writeBatch(tx, good, log);
        written += outcome.written;
        failed += outcome.failed;
        return rows.length;
      });
      if (taken < BATCH) break;
    }
    if (written + failed > 0) log.debug({ written, failed }, 'settlements drained');
  },
});
