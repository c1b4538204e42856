import { actedBy, auditEntry } from '../audit/entries.js';
import type { Pool } from '../db/pool.js';
import { ApiError, isRecordedRefusal, RecordsRefused, refusalDetails, validationFailed } from '../errors.js';
import type { EmbeddingRequest } from '../generated/openapi.js';
import type { GroupCommitter } from '../metering/groupCommit.js';
import { claimOrReplay, releaseRequestId, settledRequest } from '../metering/requestIds.js';
import { subjectOf } from '../metering/records.js';
import { UsageMeter, usageTotals, type UsageRecord } from '../metering/usageLines.js';
import type { Admission, LimitGate } from '../limits/gate.js';
import { creditsFor } from '../metering/credits.js';
import { plainTrace, type TraceRecord } from '../traces/store.js';
import type { ChatContext, ChatReply } from './chat.js';
import type { Catalog, EmbeddingModel } from './catalog.js';
import { abortedBy, ChainFailed, failureOf, firstThatAnswers, type Attempt } from './fallback.js';
import type { Adapters } from './providers/index.js';
import { UpstreamError, type EmbeddingOutput } from './providers/types.js';
import { planRoute, type RoutingPlan } from './routing.js';
import { countTokens, countTokensPaced } from './tokens.js';

// POST /v1/embeddings: residency by the egress guard (no firewall), dimension rules from the
// catalogue, batches split to the provider's size and reassembled in order, metered per input
// token and idempotent on the request id like chat.

/** Who asks, under which request id, and how it is traced: the same for embeddings as for chat. */
export type EmbeddingContext = ChatContext;
export type EmbeddingReply = ChatReply;

// Parts of one large batch sent at once; more would only queue behind the provider's own limits.
const PARALLEL_PARTS = 4;

function dimensionsError(message: string): ApiError {
  return new ApiError({
    status: 400,
    message,
    type: 'invalid_request_error',
    code: 'dimensions_not_supported',
    errors: { dimensions: [message] },
  });
}

/** The dimensions to ask the provider for (undefined: its native size), or a 400. */
export function upstreamDimensions(model: EmbeddingModel, requested: number | undefined): number | undefined {
  if (requested === undefined || requested === model.dimensions) return undefined;
  if (requested > model.dimensions) {
    throw dimensionsError(`${model.id} has ${model.dimensions} dimensions; ${requested} is more than it has`);
  }
  if (!model.reducible) {
    throw dimensionsError(`${model.id} only gives ${model.dimensions} dimensions; it cannot reduce them to ${requested}`);
  }
  return requested;
}

export class EmbeddingService {
  constructor(
    private readonly deps: { pool: Pool; catalog: Catalog; adapters: Adapters; committer: GroupCommitter; gate: LimitGate },
  ) {}

  async create(ctx: EmbeddingContext, body: EmbeddingRequest): Promise<EmbeddingReply> {
    const started = performance.now();
    const { principal } = ctx;
    const inputs = typeof body.input === 'string' ? [body.input] : body.input;
    let plan: RoutingPlan<EmbeddingModel>;
    try {
      plan = planRoute<EmbeddingModel>(this.deps.catalog, this.deps.adapters, {
        chain: [body.model],
        chainField: 'model',
        type: 'embedding',
        parameters: [],
        nonEuAccepted: principal.nonEuAccepted,
        settings: principal.settings,
      });
    } catch (err) {
      // Refused before the id was claimed: there is no claim to free.
      if (isRecordedRefusal(err)) await this.fail({ ctx, body, model: this.deps.catalog.models.get(body.model) as EmbeddingModel, inputs: inputs.length, started }, err, [], false);
      throw err;
    }
    const model = plan.candidates[0]?.model ?? (this.deps.catalog.models.get(body.model) as EmbeddingModel);
    const dimensions = upstreamDimensions(model, body.dimensions);
    const tokens = await countTokensPaced(inputs);
    const tooLong = tokens.flatMap((count, index) => (count > model.maxInputTokens ? [index] : []));
    if (tooLong.length > 0) {
      const field = (index: number) => (typeof body.input === 'string' ? 'input' : `input.${index}`);
      throw validationFailed(
        Object.fromEntries(tooLong.map((i) => [field(i), [`has ${tokens[i]} tokens; ${model.id} takes at most ${model.maxInputTokens}`]])),
      );
    }

    const { replay, hash } = await claimOrReplay(this.deps.pool, { ...ctx, kind: 'embeddings', body: body as Record<string, unknown> });
    if (replay) return { ...replay, headers: { ...replay.headers, ...(await this.deps.gate.rateHeadersOf(principal)) } };
    const inputTokens = tokens.reduce((sum, count) => sum + count, 0);
    let admission: Admission;
    try {
      admission = await this.deps.gate.admit(principal, {
        reckoning: { tokens: 'its inputs', credits: 'its inputs at the dearest model of its chain', smaller: 'send fewer or shorter inputs' },
        tokens: () => inputTokens,
        credits: () => Math.max(...plan.candidates.map((c) => creditsFor(c.model.pricing, { prompt: inputTokens, completion: 0 }).total), 0),
      });
    } catch (err) {
      if (isRecordedRefusal(err)) await this.fail({ ctx, body, model, inputs: inputs.length, started }, err);
      else if (ctx.callerRequestId) await releaseRequestId(this.deps.pool, principal.workspaceId, ctx.requestId);
      throw err;
    }
    const call = { ctx, body, model, inputs: inputs.length, started };
    let embedded: Embedded;
    try {
      embedded = await embedInParts(plan, inputs, dimensions, body.user, ctx.signal, tokens);
    } catch (caught) {
      const err = abortedBy(caught, ctx.signal);
      this.deps.gate.release(admission);
      await this.fail(call, err);
      throw err instanceof ChainFailed ? err.apiError : err;
    }
    const meter = new UsageMeter();
    for (const part of embedded.parts) meter.add(model, part.provider, { prompt: part.tokens, completion: 0 });
    const promptTokens = embedded.parts.reduce((sum, part) => sum + part.tokens, 0);
    const responseBody = {
      object: 'list',
      data: embedded.vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
      model: model.id,
      usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
    };
    const provider = embedded.parts[0]!.provider;
    const headers = { 'X-Model': model.id, 'X-Provider': provider, ...admission.headers };
    const now = new Date().toISOString();
    // Each provider that served a part of a split call bills its own line.
    const usage = meter.lines(principal, 'embeddings', ctx.requestId, {
      createdAt: now,
    });
    const spend = this.deps.gate.settle(admission, { tokens: promptTokens, credits: usageTotals(usage).credits.total });
    try {
      await this.deps.committer.write({
        spend,
        // Large vectors are kept for replay only when the caller sent its own id.
        request: settledRequest({ ...ctx, kind: 'embeddings' }, hash, { body: responseBody, headers }, { endUser: body.user ?? null, factIds: [] }),
        usage,
        trace: embeddingsTrace(call, { status: 200, provider, attempts: embedded.attempts, usage, createdAt: now }),
        audit: embeddingsAudit(call, 200, provider),
        ...subjectOf({ workspaceId: principal.workspaceId, requestId: ctx.requestId }, body.user, call.started),
      });
    } catch (err) {
      await this.fail(call, err, embedded.attempts);
      throw err;
    }
    return { body: responseBody, headers };
  }

  /** A failed or refused call is traced and audited, not billed, and its id (when it was claimed) is freed for a retry. */
  private async fail(call: EmbeddingCall, err: unknown, servedAttempts?: Attempt[], claimed = true): Promise<void> {
    const { ctx } = call;
    const { status, message, attempts } = failureOf(err, servedAttempts);
    if (err instanceof RecordsRefused) ctx.log.warn({ reason: err.reason }, 'the answer could not be recorded; not billed');
    try {
      if (claimed && ctx.callerRequestId) await releaseRequestId(this.deps.pool, ctx.principal.workspaceId, ctx.requestId);
      await this.deps.committer.write({
        trace: embeddingsTrace(call, {
          status,
          provider: null,
          attempts,
          usage: [],
          error: message,
          createdAt: new Date().toISOString(),
        }),
        audit: embeddingsAudit(call, status, null, isRecordedRefusal(err) ? refusalDetails(err) : {}),
        ...subjectOf({ workspaceId: ctx.principal.workspaceId, requestId: ctx.requestId }, call.body.user, call.started),
      });
    } catch (recordErr) {
      ctx.log.error({ err: recordErr }, 'could not record a failed embeddings request');
    }
  }
}

interface EmbeddingCall {
  ctx: EmbeddingContext;
  body: EmbeddingRequest;
  model: EmbeddingModel;
  inputs: number;
  started: number;
}

/** The trace of an embeddings call: what was asked and who served it, never the texts or the vectors. */
function embeddingsTrace(
  { ctx, body, model, inputs, started }: EmbeddingCall,
  outcome: { status: number; provider: string | null; attempts: Attempt[]; usage: UsageRecord[]; error?: string; createdAt: string },
): TraceRecord {
  const { principal } = ctx;
  return plainTrace({
    workspace_id: principal.workspaceId,
    organization_id: principal.organizationId,
    id: ctx.requestId,
    kind: 'embeddings',
    key_id: principal.keyId,
    end_user: body.user ?? null,
    application: ctx.application,
    trace_id: ctx.traceContext?.traceId ?? null,
    parent_span_id: ctx.traceContext?.parentSpanId ?? null,
    model: outcome.status < 400 ? model.id : null,
    provider: outcome.provider,
    attempts: outcome.attempts,
    status: outcome.status,
    latency_ms: performance.now() - started,
    ...usageTotals(outcome.usage),
    input: { model: model.id, inputs, ...(body.dimensions !== undefined ? { dimensions: body.dimensions } : {}) },
    output: outcome.error !== undefined ? { error: outcome.error } : { vectors: inputs },
    notes: outcome.usage.length > 1 ? [`split over ${outcome.usage.length} providers: ${outcome.usage.map((l) => l.provider).join(', ')}`] : [],
    created_at: outcome.createdAt,
  });
}

function embeddingsAudit({ ctx, body, model, inputs }: EmbeddingCall, status: number, provider: string | null, extra: Record<string, unknown> = {}) {
  return auditEntry({
    ...actedBy(ctx.principal),
    action: 'embeddings.create',
    target: ctx.requestId,
    details: { status, model: model.id, provider, inputs, ...(body.user ? { user: body.user } : {}), ...extra },
  });
}

interface Embedded {
  vectors: number[][];
  /** Who served each part, and its input tokens (the provider's count, or the tokenizer's). */
  parts: { provider: string; tokens: number }[];
  attempts: Attempt[];
}

/**
 * Splits the inputs into the model's batch size, embeds the parts (a few at a time, each with
 * the chain's fallback) and puts the vectors back in input order. One failed part fails the call.
 * A part whose provider reports no usage, or more than its inputs can hold, is billed the
 * tokenizer's count: `tokens`, when the caller has counted the inputs already.
 */
export async function embedInParts(
  plan: RoutingPlan<EmbeddingModel>,
  inputs: string[],
  dimensions: number | undefined,
  user: string | undefined,
  signal: AbortSignal,
  tokens?: number[],
): Promise<Embedded> {
  const size = plan.candidates[0]?.model.maxBatch ?? inputs.length;
  const starts: number[] = [];
  for (let start = 0; start < inputs.length; start += size) starts.push(start);
  const results: { output: EmbeddingOutput; provider: string; maxInputTokens: number; attempts: Attempt[] }[] = new Array(starts.length);
  let next = 0;
  const worker = async () => {
    while (next < starts.length) {
      const index = next++;
      const start = starts[index]!;
      const input = inputs.slice(start, start + size);
      // Vectors of the wrong size are the provider's failure (the adapter checks their number): the next one is asked.
      const served = await firstThatAnswers(plan, async (candidate) => {
        const output = await candidate.adapter.embed(
          candidate.target,
          { input, ...(dimensions !== undefined ? { dimensions } : {}), ...(user ? { user } : {}) },
          signal,
        );
        const provider = candidate.target.provider.id;
        const size = dimensions ?? candidate.model.dimensions;
        const wrong = output.embeddings.findIndex((vector) => vector.length !== size);
        if (wrong >= 0) {
          throw new UpstreamError('protocol', `${provider}: returned a vector of ${output.embeddings[wrong]!.length} dimensions for ${candidate.model.id}, which has ${size}`);
        }
        // A value that is no finite number ("NaN" as a string, null) would reach the caller, or a vector column, as it is.
        if (output.embeddings.some((vector) => !vector.every(Number.isFinite))) {
          throw new UpstreamError('protocol', `${provider}: returned a vector with a value that is not a finite number`);
        }
        return output;
      });
      results[index] = { output: served.result, provider: served.candidate.target.provider.id, maxInputTokens: served.candidate.model.maxInputTokens, attempts: served.attempts };
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_PARTS, starts.length) }, worker));
  return {
    vectors: results.flatMap((r) => r.output.embeddings),
    parts: results.map((r, index) => {
      const start = starts[index]!;
      const counted = () =>
        tokens
          ? tokens.slice(start, start + size).reduce((sum, n) => sum + n, 0)
          : inputs.slice(start, start + size).reduce((sum, text) => sum + countTokens(text), 0);
      // More tokens than the part's inputs can hold (each at most the model's max_input_tokens) is no count to bill by.
      const reported = r.output.usage?.prompt_tokens;
      const most = Math.min(size, inputs.length - start) * r.maxInputTokens;
      return { provider: r.provider, tokens: reported !== undefined && reported <= most ? reported : counted() };
    }),
    attempts: results.flatMap((r) => r.attempts),
  };
}
