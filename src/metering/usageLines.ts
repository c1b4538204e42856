import type { CatalogModel } from '../gateway/catalog.js';
import { creditsFor, type Credits } from './credits.js';

export type UsageKind = 'chat' | 'embeddings' | 'ingest' | 'facts';

/**
 * One line of the usage table: unique per (workspace, request id, line), so a line written twice is
 * billed once. A request has one line per model and provider its work was billed to (sql/0034).
 */
export interface UsageRecord {
  organization_id: string;
  workspace_id: string;
  request_id: string;
  /** 0, 1, …: the request's lines in the order their models were first used. */
  line: number;
  kind: UsageKind;
  model: string;
  provider: string | null;
  prompt_tokens: number;
  completion_tokens: number;
  /** Prompt tokens read from the provider's prompt cache (or all of them on a response-cache hit). */
  cached_tokens: number;
  /** Prompt tokens the provider wrote to its prompt cache (0 when absent). */
  cache_write_tokens?: number;
  credits: Credits;
  created_at: string;
  /** What a stream the client closed had streamed: a retry under its id replaces it. */
  partial?: boolean;
}

export interface UsageOwner {
  organizationId: string;
  workspaceId: string;
}

interface Use {
  model: CatalogModel;
  provider: string | null;
  prompt: number;
  completion: number;
  cached: number;
  cacheWrite: number;
}

/**
 * The usage lines of one billed piece of work: a chat, an embeddings call, an ingest, a fact
 * extraction. Tokens are added per model and provider as they are spent, and become one line per
 * model and provider, so that usage by model stays true and each provider's part is billed to it
 * (a split embeddings call served by two providers, an extraction whose chain fell back).
 */
export class UsageMeter {
  private readonly uses = new Map<string, Use>();

  add(model: CatalogModel, provider: string | null, tokens: { prompt: number; completion: number; cached?: number; cacheWrite?: number }): this {
    const key = `${model.id}\0${provider ?? ''}`;
    const use = this.uses.get(key) ?? { model, provider, prompt: 0, completion: 0, cached: 0, cacheWrite: 0 };
    use.prompt += tokens.prompt;
    use.completion += tokens.completion;
    use.cached += tokens.cached ?? 0;
    use.cacheWrite += tokens.cacheWrite ?? 0;
    this.uses.set(key, use);
    return this;
  }

  get empty(): boolean {
    return this.uses.size === 0;
  }

  /**
   * The lines of request `requestId`, numbered in the order their models were first used. Service
   * fees go on the first line; a cache hit is billed no base credits.
   */
  lines(
    owner: UsageOwner,
    kind: UsageKind,
    requestId: string,
    {
      services = 0,
      cacheHit = false,
      createdAt = new Date().toISOString(),
      partial = false,
    }: { services?: number; cacheHit?: boolean; createdAt?: string; partial?: boolean } = {},
  ): UsageRecord[] {
    return [...this.uses.values()].map((use, index) => {
      return {
        organization_id: owner.organizationId,
        workspace_id: owner.workspaceId,
        request_id: requestId,
        line: index,
        kind,
        model: use.model.id,
        provider: use.provider,
        prompt_tokens: use.prompt,
        completion_tokens: use.completion,
        cached_tokens: use.cached,
        cache_write_tokens: use.cacheWrite,
        credits: creditsFor(
          use.model.pricing,
          { prompt: use.prompt, completion: use.completion, cacheRead: use.cached, cacheWrite: use.cacheWrite },
          { services: index === 0 ? services : 0, cacheHit },
        ),
        created_at: createdAt,
        ...(partial ? { partial } : {}),
      };
    });
  }
}

/** What some lines add up to, as a trace of the work they bill shows it. */
export function usageTotals(lines: readonly UsageRecord[]): {
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  cache_write_tokens: number;
  credits: Credits;
} {
  const totals = { prompt_tokens: 0, completion_tokens: 0, cached_tokens: 0, cache_write_tokens: 0, credits: { base: 0, services: 0, total: 0 } };
  for (const line of lines) {
    totals.prompt_tokens += line.prompt_tokens;
    totals.completion_tokens += line.completion_tokens;
    totals.cached_tokens += line.cached_tokens;
    totals.cache_write_tokens += line.cache_write_tokens ?? 0;
    totals.credits.base += line.credits.base;
    totals.credits.services += line.credits.services;
    totals.credits.total += line.credits.total;
  }
  // Kept to 8 decimals, as each line is.
  for (const part of ['base', 'services', 'total'] as const) totals.credits[part] = Math.round(totals.credits[part] * 1e8) / 1e8;
  return totals;
}
