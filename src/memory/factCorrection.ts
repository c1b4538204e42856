import { randomUUID } from 'node:crypto';
import type { Pool } from '../db/pool.js';
import { withTransaction } from '../db/transaction.js';
import { notFound } from '../errors.js';
import type { Catalog } from '../gateway/catalog.js';
import type { Adapters } from '../gateway/providers/index.js';
import { isBudget, type Admission, type LimitGate } from '../limits/gate.js';
import { serviceRequestId } from '../metering/requestIds.js';
import { serviceWorkRecords } from '../metering/serviceWork.js';
import { UsageMeter, usageTotals } from '../metering/usageLines.js';
import { creditsFor } from '../metering/credits.js';
import { countTokens } from '../gateway/tokens.js';
import { writeRecordsNow } from '../metering/writeRecords.js';
import type { Principal } from '../tenancy/store.js';
import { embedForMemory, memoryEmbeddingModel, refuseIfMemoryCannotBeEmbedded } from './embedder.js';
import { forgetAnswersHoldingFact } from './erasure.js';
import { submissionLanguage, TS_CONFIG_OF } from './factRules.js';
import { findFact, lockEndUser, rewriteFact, type FactRow } from './facts.js';

// PATCH /memory/facts/{id}: a caller corrects one fact's text, as mem0's update(memory_id, data).
// The new text is embedded (masked, as every memory embedding) before the write, outside any
// transaction; the write takes the end-user lock that an erasure takes, so a fact erased meanwhile
// stays erased (404). The embedding is billed as a `facts` line with a trace and an audit entry by
// the acting key, in the write's transaction. A correction to the text the fact already holds does
// nothing and bills nothing: a retry of one that succeeded is never billed twice.
//
// What the fact was retrieved into (replays, cached answers, stored responses) holds its old text:
// it is forgotten, as when the fact is deleted, so the corrected value cannot come back.

export interface FactCorrectionServices {
  pool: Pool;
  catalog: Catalog;
  adapters: Adapters;
  gate: LimitGate;
}

export async function correctFact(services: FactCorrectionServices, principal: Principal, id: string, content: string): Promise<FactRow> {
  const { pool, catalog, gate } = services;
  const fact = await findFact(pool, principal.workspaceId, id);
  if (!fact) throw notFound(`no fact ${id}`);
  if (fact.content === content) return fact;
  refuseIfMemoryCannotBeEmbedded(catalog, principal.settings);
  // Held against the budgets before the provider is called, as an embeddings call is: checked only,
  // corrections sent together went far past a budget.
  const model = memoryEmbeddingModel(catalog);
  const tokens = countTokens(content);
  const admission = await gate.admit(
    principal,
    {
      reckoning: { tokens: 'its text', credits: 'its text embedded', smaller: 'send a shorter text' },
      tokens: () => tokens,
      credits: () => creditsFor(model.pricing, { prompt: tokens, completion: 0 }).total,
    },
    isBudget,
  );
  const startedAt = performance.now();
  let corrected: FactRow | undefined;
  try {
    corrected = await write(services, principal, fact, content, admission, startedAt);
  } finally {
    // Settled when the correction was written; a failure or a 404 gives back what it held.
    if (!admission.ended) gate.release(admission);
  }
  if (!corrected) throw notFound(`no fact ${id}`);
  return corrected;
}

/** Embeds the text and writes it with its records; undefined when the fact is gone meanwhile. */
async function write(
  { pool, catalog, adapters, gate }: FactCorrectionServices,
  principal: Principal,
  fact: FactRow,
  content: string,
  admission: Admission,
  startedAt: number,
): Promise<FactRow | undefined> {
  const { workspaceId } = principal;
  const id = fact.id;
  const embedded = await embedForMemory(catalog, adapters, [content], undefined, principal.settings);
  const scope = { workspaceId, userRef: fact.user_ref };
  const owner = { organizationId: principal.organizationId, ...scope };
  return withTransaction(pool, async (db) => {
    await lockEndUser(db, scope);
    const current = await findFact(db, workspaceId, id);
    if (!current) return undefined;
    if (current.content === content) return current;
    const tsConfig = TS_CONFIG_OF[submissionLanguage(content, principal.settings.firewallLanguage)];
    // Forgotten meanwhile (DELETE /memory/facts/{id} takes no end-user lock): a 404, neither billed nor audited.
    if (!(await rewriteFact(db, scope, id, { content, model: embedded.model.id, embedding: embedded.vectors[0]!, tsConfig }, null))) return undefined;
    await forgetAnswersHoldingFact(db, workspaceId, id);
    const requestId = serviceRequestId('facts', randomUUID());
    const usage = new UsageMeter().add(embedded.model, null, { prompt: embedded.tokens, completion: 0 }).lines(owner, 'facts', requestId);
    const spend = gate.settle(admission, { tokens: embedded.tokens, credits: usageTotals(usage).credits.total });
    const records = serviceWorkRecords({
      owner,
      kind: 'facts',
      id: requestId,
      action: 'fact.corrected',
      target: id,
      usage,
      model: embedded.model.id,
      startedAt,
      input: { fact_id: id },
      output: { updated: 1 },
      ...(fact.user_ref !== null ? { auditDetails: { user_ref: fact.user_ref } } : {}),
      actor: { key_id: principal.keyId, kind: principal.kind },
      spend,
    });
    await writeRecordsNow(db, records);
    return findFact(db, workspaceId, id);
  });
}
