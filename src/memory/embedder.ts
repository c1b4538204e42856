import type { Catalog, EmbeddingModel } from '../gateway/catalog.js';
import { embedInParts } from '../gateway/embeddings.js';
import { ChainFailed } from '../gateway/fallback.js';
import type { Adapters } from '../gateway/providers/index.js';
import { planRoute } from '../gateway/routing.js';

// Memory (chunks, facts, and the queries that search them) is embedded by one EU model with
// 1024 dimensions: the columns are vector(1024). The hosted EU model is preferred when its key is
// configured; the built-in local/embed-1024 works offline. Every stored vector records its
// model, and a search only compares vectors of the same model.

export const MEMORY_DIMENSIONS = 1024;
const PREFERRED = ['mistral/mistral-embed', 'local/embed-1024'];

export function memoryEmbeddingModel(catalog: Catalog): EmbeddingModel {
  const usable = (model: EmbeddingModel) =>
    model.dimensions === MEMORY_DIMENSIONS &&
    model.endpoints.some((e) => e.region === 'eu' && catalog.providers.get(e.provider)?.available === true);
  const embeddingModels = [...catalog.models.values()].filter((m): m is EmbeddingModel => m.type === 'embedding');
  const ranked = [
    ...PREFERRED.map((id) => embeddingModels.find((m) => m.id === id)).filter((m): m is EmbeddingModel => m !== undefined),
    ...embeddingModels,
  ];
  const model = ranked.find(usable);
  if (!model) throw new Error(`the catalogue has no available EU embedding model with ${MEMORY_DIMENSIONS} dimensions`);
  return model;
}

export interface MemoryEmbeddings {
  model: EmbeddingModel;
  vectors: number[][];
  /** Input tokens, from the provider's usage or the tokenizer. */
  tokens: number;
}

/** Embeds texts for memory with the memory model, through the EU endpoints only. */
export async function embedForMemory(
  catalog: Catalog,
  adapters: Adapters,
  texts: string[],
  signal: AbortSignal = new AbortController().signal,
): Promise<MemoryEmbeddings> {
  const model = memoryEmbeddingModel(catalog);
  if (texts.length === 0) return { model, vectors: [], tokens: 0 };
  const plan = planRoute<EmbeddingModel>(catalog, adapters, {
    chain: [model.id],
    chainField: 'model',
    type: 'embedding',
    parameters: [],
    // Memory never leaves the EU, whatever the organization accepted for its own calls.
    nonEuAccepted: false,
    settings: { allowedProviders: null, allowedModels: null },
  });
  try {
    const { vectors, parts } = await embedInParts(plan, texts, undefined, undefined, signal);
    return { model, vectors, tokens: parts.reduce((sum, part) => sum + part.tokens, 0) };
  } catch (err) {
    throw err instanceof ChainFailed ? new Error(`embedding for memory failed: ${err.apiError.message}`) : err;
  }
}
