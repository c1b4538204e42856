import { Ajv, type ValidateFunction } from 'ajv';
import { auditEntrySchema } from '../src/audit/schema.js';
import { insertAuditEntries } from '../src/audit/store.js';
import { withTransaction } from '../src/db/transaction.js';
import type { Pool, PoolClient } from '../src/db/pool.js';
import {
  deletePendingSettlements,
  drainPendingSettlements,
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
// thread_messages, a batch at a time until none is left. Every write is idempotent (usage per
// workspace + request id, traces per id, audit per event id, thread messages per request +
// position), so a retried job writes nothing twice.
//
// A batch first goes the fast way: one statement moves it inside Postgres, relying on the tables'
// types and constraints. Only when that fails are its rows read, checked one by one as a job
// payload would be, and written each under its own savepoint, so that one bad row is set aside
// with its reason instead of holding back everyone's usage.

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
    kind: { enum: ['chat', 'embeddings', 'ingest', 'facts'] },
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

/** Writes every part of one settlement, then deletes its row. */
async function write(db: PoolClient, settlement: Settlement): Promise<void> {
  if (settlement.usage) await insertUsage(db, [settlement.usage]);
  if (settlement.trace) await insertTraces(db, [settlement.trace]);
  await insertAuditEntries(db, [settlement.audit]);
  if (settlement.thread) await appendToThreads(db, [settlement.thread]);
  await deletePendingSettlements(db, [settlement.id]);
}

/** Writes each row under its own savepoint, in the caller's transaction; those that fail alone are set aside. */
async function writeEach(tx: PoolClient, settlements: Settlement[], log: Logger): Promise<{ written: number; failed: number }> {
  let failed = 0;
  for (const settlement of settlements) {
    try {
      await withSavepoint(tx, () => write(tx, settlement));
    } catch (rowErr) {
      failed += 1;
      log.error({ err: rowErr, pending_settlement: settlement.id }, 'pending settlement could not be written');
      await markPendingSettlementFailed(tx, settlement.id, (rowErr as Error).message);
    }
  }
  return { written: settlements.length - failed, failed };
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

/** The slow way, for a batch the fast way could not write: every row checked, bad ones set aside. */
async function checkAndWrite(db: Pool, log: Logger): Promise<{ taken: number; written: number; failed: number }> {
  return withTransaction(db, async (tx) => {
    const rows = await lockPendingSettlements(tx, BATCH);
    const good: Settlement[] = [];
    let rejected = 0;
    for (const row of rows) {
      const checked = check(row);
      if ('settlement' in checked) {
        good.push(checked.settlement);
        continue;
      }
      rejected += 1;
      log.error({ pending_settlement: row.id, error: checked.error }, 'pending settlement rejected');
      await markPendingSettlementFailed(tx, row.id, checked.error);
    }
    const outcome = await writeEach(tx, good, log);
    return { taken: rows.length, written: outcome.written, failed: rejected + outcome.failed };
  });
}

export default defineTask({
  name: 'settlements__drain',
  parse: noPayload('settlements__drain'),
  async run(_payload, { db, log }) {
    let written = 0;
    let failed = 0;
    for (;;) {
      let taken: number;
      try {
        // One statement, so one transaction: a failure leaves the whole batch pending.
        taken = await drainPendingSettlements(db, BATCH);
        written += taken;
      } catch (err) {
        log.warn({ err }, 'settlement batch failed; checking and writing its rows one by one');
        const outcome = await checkAndWrite(db, log);
        taken = outcome.taken;
        written += outcome.written;
        failed += outcome.failed;
      }
      if (taken < BATCH) break;
    }
    if (written + failed > 0) log.debug({ written, failed }, 'settlements drained');
  },
});
