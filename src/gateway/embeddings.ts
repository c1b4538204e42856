import type { Pool } from '../db/pool.js';
import { ApiError, validationFailed } from '../errors.js';
import type { EmbeddingRequest } from '../generated/openapi.js';
import { actedBy, auditEntry } from '../jobs.js';
import type { Logger } from '../logger.js';
import { creditsFor } from '../metering/credits.js';
import type { GroupCommitter } from '../metering/groupCommit.js';
import { claimOrReplay, releaseRequestId, settledRequest } from '../metering/requestIds.js';
import type { Principal } from '../tenancy/store.js';
import type { Catalog, EmbeddingModel } from './catalog.js';
import { ChainFailed, firstThatAnswers } from './fallback.js';
import type { Adapters } from './providers/index.js';
import type { EmbeddingOutput } from './providers/types.js';
import { planRoute, type RoutingPlan } from './routing.js';
import { countTokens } from './tokens.js';

// POST /v1/embeddings: residency by the egress guard (no firewall), dimension rules from the
// catalogue, batches split to the provider's size and reassembled in order, metered per input
// token and idempotent on the request id like chat.

export interface EmbeddingContext {
  principal: Principal;
  requestId: string;
  callerRequestId: boolean;
  signal: AbortSignal;
  log: Logger;
}

export interface EmbeddingReply {
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

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
    private readonly deps: { pool: Pool; catalog: Catalog; adapters: Adapters; committer: GroupCommitter },
  ) {}

  async create(ctx: EmbeddingContext, body: EmbeddingRequest): Promise<EmbeddingReply> {
    const { principal } = ctx;
    const inputs = typeof body.input === 'string' ? [body.input] : body.input;
    const plan = planRoute<EmbeddingModel>(this.deps.catalog, this.deps.adapters, {
      chain: [body.model],
      chainField: 'model',
      type: 'embedding',
      parameters: [],
      nonEuAccepted: principal.nonEuAccepted,
      settings: principal.settings,
    });
    const model = plan.candidates[0]?.model ?? (this.deps.catalog.models.get(body.model) as EmbeddingModel);
    const dimensions = upstreamDimensions(model, body.dimensions);
    const tokens = inputs.map((text) => countTokens(text));
    const tooLong = tokens.flatMap((count, index) => (count > model.maxInputTokens ? [index] : []));
    if (tooLong.length > 0) {
      const field = (index: number) => (typeof body.input === 'string' ? 'input' : `input.${index}`);
      throw validationFailed(
        Object.fromEntries(tooLong.map((i) => [field(i), [`has ${tokens[i]} tokens; ${model.id} takes at most ${model.maxInputTokens}`]])),
      );
    }

    const { replay, hash } = await claimOrReplay(this.deps.pool, { ...ctx, kind: 'embeddings', body: body as Record<string, unknown> });
    if (replay) return replay;
    try {
      const { vectors, provider, usageTokens } = await embedInParts(plan, inputs, dimensions, body.user, ctx.signal);
      const promptTokens = usageTokens ?? tokens.reduce((sum, n) => sum + n, 0);
      const responseBody = {
        object: 'list',
        data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
        model: model.id,
        usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
      };
      const headers = { 'X-Model': model.id, 'X-Provider': provider };
      const now = new Date().toISOString();
      await this.deps.committer.settle({
        workspaceId: principal.workspaceId,
        // Large vectors are kept for replay only when the caller sent its own id.
        request: settledRequest({ ...ctx, kind: 'embeddings' }, hash, { body: responseBody, headers }),
        usage: {
          organization_id: principal.organizationId,
          workspace_id: principal.workspaceId,
          request_id: ctx.requestId,
          kind: 'embeddings',
          model: model.id,
          provider,
          prompt_tokens: promptTokens,
          completion_tokens: 0,
          cached_tokens: 0,
          credits: creditsFor(model.pricing, { prompt: promptTokens, completion: 0 }),
          created_at: now,
        },
        audit: auditEntry({
          ...actedBy(principal),
          action: 'embeddings.create',
          target: ctx.requestId,
          details: { model: model.id, provider, inputs: inputs.length, ...(body.user ? { user: body.user } : {}) },
        }),
      });
      return { body: responseBody, headers };
    } catch (err) {
      if (ctx.callerRequestId) await releaseRequestId(this.deps.pool, principal.workspaceId, ctx.requestId);
      throw err instanceof ChainFailed ? err.apiError : err;
    }
  }
}

/**
 * Splits the inputs into the model's batch size, embeds the parts (a few at a time, each with
 * the chain's fallback) and puts the vectors back in input order. One failed part fails the call.
 */
export async function embedInParts(
  plan: RoutingPlan<EmbeddingModel>,
  inputs: string[],
  dimensions: number | undefined,
  user: string | undefined,
  signal: AbortSignal,
): Promise<{ vectors: number[][]; provider: string; usageTokens: number | undefined }> {
  const size = plan.candidates[0]?.model.maxBatch ?? inputs.length;
  const parts: string[][] = [];
  for (let start = 0; start < inputs.length; start += size) parts.push(inputs.slice(start, start + size));
  const results: { output: EmbeddingOutput; provider: string }[] = new Array(parts.length);
  let next = 0;
  const worker = async () => {
    while (next < parts.length) {
      const index = next++;
      const input = parts[index]!;
      const served = await firstThatAnswers(plan, (candidate) =>
        candidate.adapter.embed(
          candidate.target,
          { input, ...(dimensions !== undefined ? { dimensions } : {}), ...(user ? { user } : {}) },
          signal,
        ),
      );
      if (served.result.embeddings.length !== input.length) {
        throw new Error(`${served.candidate.target.provider.id} returned ${served.result.embeddings.length} vectors for ${input.length} inputs`);
      }
      results[index] = { output: served.result, provider: served.candidate.target.provider.id };
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_PARTS, parts.length) }, worker));
  const everyPartCounted = results.every((r) => r.output.usage !== undefined);
  return {
    vectors: results.flatMap((r) => r.output.embeddings),
    provider: results[0]!.provider,
    usageTokens: everyPartCounted ? results.reduce((sum, r) => sum + r.output.usage!.prompt_tokens, 0) : undefined,
  };
}
