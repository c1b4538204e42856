import type { Pool } from '../db/pool.js';
import { withTransaction } from '../db/transaction.js';
import { recordFactsExtracted } from '../webhooks/events.js';
import { ApiError, MemoryEmbeddingFailed, MemoryEmbeddingNotAllowed } from '../errors.js';
import { createFirewall, type Firewall, type FirewallStats, type Language } from '../firewall/index.js';
import type { Catalog } from '../gateway/catalog.js';
import { ChainFailed } from '../gateway/fallback.js';
import type { Adapters } from '../gateway/providers/index.js';
import { serviceRequestId } from '../metering/requestIds.js';
import { serviceWorkRecords } from '../metering/serviceWork.js';
import { UsageMeter } from '../metering/usageLines.js';
import { writeRecordsNow } from '../metering/writeRecords.js';
import { embedForMemory, type MemoryEmbeddings } from './embedder.js';
import { forgetAnswersHoldingFact } from './erasure.js';
import { extractWithModel, reconcileWithModel, type Decision, type ExtractionModel } from './factModel.js';
import { extractByRules, submissionLanguage, TS_CONFIG_OF, tsConfigFor, withdrawnStatement, withdraws } from './factRules.js';
import {
  awaitRetry,
  claimSubmission,
  cutsShort,
  writtenNoBetter,
  findDuplicate,
  findSameText,
  finishSubmission,
  holdPendingSubmission,
  insertFact,
  lockEndUser,
  nearestFacts,
  normalizeFact,
  numbersOf,
  pendingSubmissionsBefore,
  personalValuesOf,
  rewriteFact,
  deleteFactInScope,
  factsStating,
  type ClaimedSubmission,
  type FactScope,
  type NewFact,
  type SubmissionOutcome,
} from './facts.js';
import { withVectorScan } from './factSearch.js';

// The memory__extract_facts job: a submission becomes facts. The slow part (the model, the
// embeddings) runs outside any transaction; then one short transaction, under the end-user lock,
// re-checks that the submission still exists and writes. An erasure takes the same lock and
// deletes the submission, so whichever commits second sees the other's work: an erasure after
// the write deletes the new facts, and a write after the erasure finds no submission and stores
// nothing. A job that was still queued finds no submission at the start.
//
// The tokens the extraction spent (the extraction model's answers, the embeddings) are billed with
// the facts, in the write step's transaction, one usage row per model (kind `facts`, request id
// `facts:<submission>:<model>`), with a trace (`facts:<submission>`) and an audit entry
// (`facts.extracted`): a submission erased meanwhile, or a failed one, is not billed, and a rerun
// of a job whose write committed finds the submission done and bills nothing twice.

export interface ExtractionServices {
  db: Pool;
  catalog: Catalog;
  adapters: Adapters;
  signal: AbortSignal;
}

type Operation =
  | { kind: 'add'; fact: NewFact }
  | { kind: 'update'; id: string; fact: NewFact }
  | { kind: 'delete'; id: string };

interface WritePlan {
  extractor: string;
  /** Facts the extractor found in the submission (before reconciliation). */
  found: number;
  operations: Operation[];
  /**
   * For the trace, when a model was asked: what the firewall masked (counts per type, never
   * values), or null when the text went in clear.
   */
  masked?: FirewallStats['counts'] | null;
}

export type ExtractionResult = { status: 'gone' } | SubmissionOutcome;

/** Existing facts shown to the model per new fact, as mem0 does (its search limit for updates). */
const SIMILAR_PER_FACT = 5;

function scopeOf(submission: ClaimedSubmission): FactScope {
  return { workspaceId: submission.workspace_id, userRef: submission.user_ref };
}

/**
 * Extracts and stores the facts of one submission. `attempt`/`maxAttempts` are the job's: a
 * failure that another attempt could cure is thrown (graphile-worker retries with backoff), except
 * on the last attempt, where it is recorded on the submission like a failure no retry can cure.
 */
export async function extractSubmission(
  services: ExtractionServices,
  submissionId: string,
  attempts: { attempt: number; maxAttempts: number },
): Promise<ExtractionResult> {
  // An end-user's submissions run one after another in their queue (decision 0027), but a failed
  // attempt waits for its retry while the queue goes on: the earlier ones still waiting are
  // extracted first, in the order they came, so that a later one never plans from facts an earlier
  // one has yet to write (QA: "I live in Haarlem", retried after "I no longer live in Haarlem", came
  // back). One that fails again fails this job too, which is retried; its own job then finds it done.
  for (const earlier of await pendingSubmissionsBefore(services.db, submissionId)) {
    await extractOne(services, earlier, { attempt: 0, maxAttempts: Infinity });
  }
  return extractOne(services, submissionId, attempts);
}

async function extractOne(
  services: ExtractionServices,
  submissionId: string,
  { attempt, maxAttempts }: { attempt: number; maxAttempts: number },
): Promise<ExtractionResult> {
  const submission = await claimSubmission(services.db, submissionId);
  if (!submission) return { status: 'gone' };
  const extractor = submission.settings.extractionModel ?? 'rules';
  const startedAt = performance.now();
  const meter = new UsageMeter();
  try {
    const plan = submission.settings.extractionModel
      ? await planWithModel(services, meter, submission, submission.settings.extractionModel)
      : await planWithRules(services, meter, submission);
    return await store(services.db, submission, plan, { meter, startedAt });
  } catch (err) {
    const permanent = permanentFailure(err);
    if (!permanent && attempt < maxAttempts) {
      // Shown while it waits for its retry, as a document's is.
      if (Number.isFinite(maxAttempts)) await awaitRetry(services.db, submission.id, `attempt ${attempt} of ${maxAttempts} failed, retrying: ${(err as Error).message}`);
      throw err;
    }
    const outcome: SubmissionOutcome = {
      status: 'failed',
      extractor,
      found: 0,
      added: 0,
      updated: 0,
      deleted: 0,
      error: permanent ?? `gave up after ${attempt} attempts: ${(err as Error).message}`,
    };
    await finishSubmission(services.db, submission.id, outcome);
    return outcome;
  }
}

/** Why no retry can help (the model is not allowed or refused the request), or undefined. */
function permanentFailure(err: unknown): string | undefined {
  // 503: every provider unavailable, try later. 499: the worker is stopping. 400: the provider
  // rejected the request as invalid, which a retry repeats.
  if (err instanceof ChainFailed) return err.apiError.status === 400 ? err.apiError.message : undefined;
  // The memory embedding: the workspace allows none of its providers, or they failed as above.
  if (err instanceof MemoryEmbeddingNotAllowed) return err.message;
  if (err instanceof MemoryEmbeddingFailed) return err.refusedText ? err.message : undefined;
  // From the routing plan: an unknown model, one the workspace policy forbids, or the egress guard.
  if (err instanceof ApiError) return `extraction model: ${err.message}`;
  return undefined;
}

/** Embeddings for memory through the providers the workspace allows, their tokens counted on the meter. */
async function embed(services: ExtractionServices, meter: UsageMeter, submission: ClaimedSubmission, texts: string[]): Promise<MemoryEmbeddings> {
  const embedded = await embedForMemory(services.catalog, services.adapters, texts, services.signal, submission.settings);
  if (texts.length > 0) meter.add(embedded.model, null, { prompt: embedded.tokens, completion: 0 });
  return embedded;
}

async function planWithRules(services: ExtractionServices, meter: UsageMeter, submission: ClaimedSubmission): Promise<WritePlan> {
  const language = submissionLanguage(submission.content, submission.settings.firewallLanguage);
  const statements = extractByRules({ content: submission.content, userRef: submission.user_ref, language });
  if (statements.length === 0) return { extractor: 'rules', found: 0, operations: [] };
  // "I no longer live in Leiden" deletes what said so ("I live in Leiden, in the Netherlands"), as
  // an extraction model reconciles it; one that withdraws nothing held is kept as a fact.
  const deletions: Operation[] = [];
  const kept: string[] = [];
  for (const statement of statements) {
    const withdrawn = withdrawnStatement(statement);
    // Found by its words, then kept only when it says what is withdrawn (factRules.ts).
    const stating = withdrawn === undefined ? [] : await factsStating(services.db, scopeOf(submission), withdrawn);
    const ids = stating.filter((fact) => withdraws(withdrawn!, fact.content)).map((fact) => fact.id);
    for (const id of ids) if (!deletions.some((op) => op.kind === 'delete' && op.id === id)) deletions.push({ kind: 'delete', id });
    if (ids.length === 0) kept.push(statement);
  }
  const { model, vectors } = await embed(services, meter, submission, kept);
  const tsConfig = TS_CONFIG_OF[language];
  return {
    extractor: 'rules',
    found: statements.length,
    operations: [
      ...deletions,
      ...kept.map((content, i): Operation => ({ kind: 'add', fact: { content, model: model.id, embedding: vectors[i]!, tsConfig } })),
    ],
  };
}

/**
 * The firewall of a job that asks a model: on unless the workspace turned it off, which only the
 * organization's acceptance allows. Without the acceptance (withdrawn since) the job masks
 * anyway: it fails closed, as chat does, but has no caller to refuse, and masked it can still run.
 */
function firewallFor(submission: ClaimedSubmission, language: Language): Firewall | undefined {
  if (!submission.settings.firewallDefault && submission.non_eu_accepted) return undefined;
  return createFirewall({ language: submission.settings.firewallLanguage, fallbackLanguage: language });
}

async function planWithModel(services: ExtractionServices, meter: UsageMeter, submission: ClaimedSubmission, modelId: string): Promise<WritePlan> {
  const language = submissionLanguage(submission.content, submission.settings.firewallLanguage);
  const extraction: ExtractionModel = {
    catalog: services.catalog,
    adapters: services.adapters,
    modelId,
    // Read from the organization when the job started: the guard fails closed on a withdrawal.
    nonEuAccepted: submission.non_eu_accepted,
    settings: submission.settings,
    signal: services.signal,
    meter,
    firewall: firewallFor(submission, language),
  };
  const candidates = await extractWithModel(extraction, submission.content, submission.user_ref !== null);
  const masked = () => (extraction.firewall ? extraction.firewall.stats().counts : null);
  if (candidates.length === 0) return { extractor: modelId, found: 0, operations: [], masked: masked() };

  const embedded = await embed(services, meter, submission, candidates);
  const memoryModel = embedded.model.id;
  const scope = scopeOf(submission);
  const existing = await withVectorScan(services.db, SIMILAR_PER_FACT, (db) =>
    nearestFacts(db, scope, memoryModel, embedded.vectors, SIMILAR_PER_FACT),
  );
  // Nothing held yet: every fact is new, and a second question to the model would be wasted.
  const decisions: Decision[] =
    existing.length === 0
      ? candidates.map((text) => ({ event: 'ADD', id: null, text }))
      : await reconcileWithModel(extraction, existing, candidates);

  // Texts the model rewrote (an UPDATE merges two facts) need their own embeddings.
  const vectorOf = new Map(candidates.map((text, i) => [text, embedded.vectors[i]!]));
  const rewritten = [...new Set(decisions.filter((d) => (d.event === 'ADD' || d.event === 'UPDATE') && !vectorOf.has(d.text)).map((d) => d.text))];
  if (rewritten.length > 0) {
    const more = await embed(services, meter, submission, rewritten);
    rewritten.forEach((text, i) => vectorOf.set(text, more.vectors[i]!));
  }
  const factOf = (text: string): NewFact => ({ content: text, model: memoryModel, embedding: vectorOf.get(text)!, tsConfig: tsConfigFor(text, language) });

  const operations = decisions.flatMap((d): Operation[] => {
    switch (d.event) {
      case 'ADD':
        return [{ kind: 'add', fact: factOf(d.text) }];
      case 'UPDATE':
        return [{ kind: 'update', id: d.id!, fact: factOf(d.text) }];
      case 'DELETE':
        return [{ kind: 'delete', id: d.id! }];
      case 'NONE':
        return [];
    }
  });
  return { extractor: modelId, found: candidates.length, operations, masked: masked() };
}

/** The write step: one transaction under the end-user lock; nothing at all once erased. */
async function store(
  pool: Pool,
  submission: ClaimedSubmission,
  plan: WritePlan,
  { meter, startedAt }: { meter: UsageMeter; startedAt: number },
): Promise<ExtractionResult> {
  const scope = scopeOf(submission);
  const owner = { organizationId: submission.organization_id, ...scope };
  return withTransaction(pool, async (db) => {
    await lockEndUser(db, scope);
    if (!(await holdPendingSubmission(db, submission.id))) return { status: 'gone' } as const;
    // Duplicate checks look for the nearest neighbours among this end-user's facts only.
    await db.query(`select set_config('hnsw.iterative_scan', 'relaxed_order', true)`);
    let added = 0;
    let updated = 0;
    let deleted = 0;
    const addOrMerge = async (fact: NewFact) => {
      let duplicate = await findDuplicate(db, scope, fact);
      // Across submissions another number corrects a fact ("my son is 7" → "… 8"); said together in
      // one, the numbers tell two facts apart ("a dentist appointment on 3 May" and "… on 23 May").
      if (duplicate?.submission_id === submission.id && numbersOf(duplicate.content) !== numbersOf(fact.content)) duplicate = undefined;
      // Another person, address or account is another fact, whenever it was said: embedded masked,
      // the two are one vector, and a merge would lose one (a second daughter, another friend).
      if (
        duplicate &&
        normalizeFact(duplicate.content) !== normalizeFact(fact.content) &&
        personalValuesOf(duplicate.content) !== personalValuesOf(fact.content)
      ) {
        duplicate = undefined;
      }
      if (duplicate && (cutsShort(fact.content, duplicate.content) || writtenNoBetter(fact.content, duplicate.content))) return;
      if (duplicate && (await rewriteFact(db, scope, duplicate.id, fact, submission.id))) updated += 1;
      else {
        await insertFact(db, owner, fact, submission.id);
        added += 1;
      }
    };
    // In order: a later operation sees what an earlier one wrote, so two restatements of one
    // fact in the same submission become one fact.
    for (const op of plan.operations) {
      if (op.kind === 'add') {
        await addOrMerge(op.fact);
      } else if (op.kind === 'update') {
        const sameText = await findSameText(db, scope, op.fact.content);
        if (sameText && sameText !== op.id) {
          // The update says what another fact already says: keep that one, drop the old.
          await rewriteFact(db, scope, sameText, op.fact, submission.id);
          if (await deleteFactInScope(db, scope, op.id)) deleted += 1;
          updated += 1;
        } else if (await rewriteFact(db, scope, op.id, op.fact, submission.id)) {
          updated += 1;
        } else {
          // Forgotten meanwhile (DELETE /memory/facts/{id}): what the submission said is still new.
          await addOrMerge(op.fact);
        }
      } else if (await deleteFactInScope(db, scope, op.id)) {
        // Withdrawn ("I no longer live in Leiden"), it must not come back through the answers it
        // was retrieved into, as a fact forgotten by id does not (erasure.ts).
        await forgetAnswersHoldingFact(db, scope.workspaceId, op.id);
        deleted += 1;
      }
    }
    const outcome: SubmissionOutcome = {
      status: plan.found === 0 ? 'empty' : 'done',
      extractor: plan.extractor,
      found: plan.found,
      added,
      updated,
      deleted,
    };
    await finishSubmission(db, submission.id, outcome);
    await recordFactsExtracted(db, owner, { submissionId: submission.id, userRef: submission.user_ref, added, updated, deleted });
    if (!meter.empty) {
      const id = serviceRequestId('facts', submission.id);
      const usage = meter.lines(owner, 'facts', id);
      await writeRecordsNow(
        db,
        serviceWorkRecords({
          owner,
          kind: 'facts',
          id,
          action: 'facts.extracted',
          target: submission.id,
          usage,
          model: plan.extractor === 'rules' ? usage[0]!.model : plan.extractor,
          startedAt,
          input: {
            submission_id: submission.id,
            extractor: plan.extractor,
            ...(plan.masked !== undefined ? { masked: plan.masked } : {}),
          },
          output: { found: outcome.found, added: outcome.added, updated: outcome.updated, deleted: outcome.deleted },
          // The audit log names the end-user, as a chat's entry does; the trace does not.
          ...(submission.user_ref !== null ? { auditDetails: { user_ref: submission.user_ref } } : {}),
        }),
      );
    }
    return outcome;
  });
}
