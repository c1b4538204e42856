import type { Queryable } from '../db/pool.js';
import { MemoryEmbeddingFailed, MemoryEmbeddingNotAllowed } from '../errors.js';
import { isMemoryModel, MEMORY_DIMENSIONS, type Catalog, type EmbeddingModel } from '../gateway/catalog.js';
import { embedInParts } from '../gateway/embeddings.js';
import { abortedBy, ChainFailed } from '../gateway/fallback.js';
import type { Adapters } from '../gateway/providers/index.js';
import { planRoute } from '../gateway/routing.js';
import { createFirewall } from '../firewall/index.js';
import { findWorkspaceSettings, type WorkspaceSettings } from '../tenancy/store.js';

// Memory (chunks, facts, and the queries that search them) is embedded by one EU model with
// 1024 dimensions: the columns are vector(1024). A hosted model is preferred when its key is
// configured (Mistral's first, then any other the catalogue declares); the built-in
// local/embed-1024, which every catalogue has, works offline and comes last. Every stored vector
// records its model, and a search only compares vectors of the same model.

export { MEMORY_DIMENSIONS };
const FIRST = 'mistral/mistral-embed';
const LAST = 'local/embed-1024';

function findMemoryEmbeddingModel(catalog: Catalog): EmbeddingModel | undefined {
  const usable = [...catalog.models.values()].filter((m): m is EmbeddingModel => isMemoryModel(m, catalog.providers));
  return usable.find((m) => m.id === FIRST) ?? usable.find((m) => m.id !== LAST) ?? usable[0];
}

/** The memory model; a catalogue without one does not load (gateway/catalog.ts). */
export function memoryEmbeddingModel(catalog: Catalog): EmbeddingModel {
  const model = findMemoryEmbeddingModel(catalog);
  if (!model) throw new Error(`the catalogue has no available EU embedding model with ${MEMORY_DIMENSIONS} dimensions`);
  return model;
}

export interface MemoryEmbeddings {
  model: EmbeddingModel;
  vectors: number[][];
  /** Input tokens, from the provider's usage or the tokenizer. */
  tokens: number;
}

/**
 * What of a workspace's settings memory embedding honours: its allowed providers, as every other
 * call made for the workspace does, and its firewall: what is embedded by a provider (a chat's
 * question, a fact, a document's chunks) leaves masked, as a chat's messages do, unless the
 * firewall is off (which only the organization's non-EU acceptance allows). Not its allowed
 * models: the memory model is the service's choice, one for every workspace.
 */
export type MemoryEmbeddingPolicy = Pick<WorkspaceSettings, 'allowedProviders' | 'firewallDefault' | 'firewallLanguage'>;

/** No restriction, masked: for work done for no workspace (benchmarks). Work for a workspace passes its own. */
export const ANY_PROVIDER: MemoryEmbeddingPolicy = { allowedProviders: null, firewallDefault: true, firewallLanguage: 'auto' };

/** The workspace's policy as it stands now (the defaults when it has no settings row). */
export async function memoryEmbeddingPolicy(db: Queryable, workspaceId: string): Promise<MemoryEmbeddingPolicy> {
  return findWorkspaceSettings(db, workspaceId);
}

/** Throws MemoryEmbeddingNotAllowed when `policy` leaves no EU provider of `model`. */
export function checkMemoryEmbeddingAllowed(model: EmbeddingModel, { allowedProviders }: MemoryEmbeddingPolicy): void {
  if (allowedProviders === null) return;
  const servedBy = [...new Set(model.endpoints.filter((e) => e.region === 'eu').map((e) => e.provider))];
  if (!servedBy.some((provider) => allowedProviders.includes(provider))) throw new MemoryEmbeddingNotAllowed(model.id, servedBy);
}

/**
 * Refuses, up front, to take in memory (a document, a fact) that the workspace's policy would
 * leave no provider to embed: accepted, it would fail in its job and be lost unseen.
 */
export function refuseIfMemoryCannotBeEmbedded(catalog: Catalog, policy: MemoryEmbeddingPolicy): void {
  const model = findMemoryEmbeddingModel(catalog);
  if (model) checkMemoryEmbeddingAllowed(model, policy);
}

/**
 * Embeds texts for memory with the memory model, through the EU endpoints that `policy` allows.
 * Throws MemoryEmbeddingNotAllowed when it allows none, MemoryEmbeddingFailed when they fail.
 */
export async function embedForMemory(
  catalog: Catalog,
  adapters: Adapters,
  texts: string[],
  signal: AbortSignal = new AbortController().signal,
  policy: MemoryEmbeddingPolicy = ANY_PROVIDER,
): Promise<MemoryEmbeddings> {
  const model = memoryEmbeddingModel(catalog);
  if (texts.length === 0) return { model, vectors: [], tokens: 0 };
  checkMemoryEmbeddingAllowed(model, policy);
  const { allowedProviders } = policy;
  const sent = embedsMasked(catalog, policy) ? await maskedForEmbedding(texts, policy.firewallLanguage) : texts;
  const plan = planRoute<EmbeddingModel>(catalog, adapters, {
    chain: [model.id],
    chainField: 'model',
    type: 'embedding',
    parameters: [],
    // Memory never leaves the EU, whatever the organization accepted for its own calls.
    nonEuAccepted: false,
    settings: { allowedProviders, allowedModels: null },
  });
  try {
    const { vectors, parts } = await embedInParts(plan, sent, undefined, undefined, signal);
    return { model, vectors, tokens: parts.reduce((sum, part) => sum + part.tokens, 0) };
  } catch (err) {
    // A web process stopping aborts the call as a client going away would: the caller is told to
    // retry (503 server_stopping), not that it closed the request (499).
    const failed = abortedBy(err, signal);
    throw failed instanceof ChainFailed ? new MemoryEmbeddingFailed(failed.apiError) : failed;
  }
}

/**
 * Whether memory's texts are masked before they are embedded: the firewall is on and the memory
 * model is served by a provider (the built-in local model embeds in this process: nothing leaves).
 */
export function embedsMasked(catalog: Catalog, policy: MemoryEmbeddingPolicy): boolean {
  const model = memoryEmbeddingModel(catalog);
  return policy.firewallDefault && model.endpoints.some((endpoint) => catalog.providers.get(endpoint.provider)?.kind !== 'local');
}

/**
 * The texts as they may leave for an embedding provider: masked, each on its own (a placeholder
 * stands for a kind of value, which is what an embedding of it can use). Placeholders are never
 * restored: a vector has none.
 */
async function maskedForEmbedding(texts: readonly string[], language: MemoryEmbeddingPolicy['firewallLanguage']): Promise<string[]> {
  const masked: string[] = [];
  for (const text of texts) masked.push(await createFirewall({ language }).maskAsync(text));
  return masked;
}
