import type { Catalog, CatalogModel } from '../../gateway/catalog.js';

// OpenAI's model object, plus what a caller needs to choose a model here: type, region, size,
// price and capabilities, and whether any provider for it is configured right now.
export function presentModel(model: CatalogModel, catalog: Catalog, created: number) {
  return {
    id: model.id,
    object: 'model' as const,
    created,
    owned_by: model.vendor,
    type: model.type,
    region: model.region,
    ...(model.type === 'chat'
      ? { context_length: model.contextLength }
      : { dimensions: model.dimensions, reducible: model.reducible, max_input_tokens: model.maxInputTokens }),
    pricing: {
      prompt: model.pricing.prompt,
      completion: model.pricing.completion,
      ...(model.pricing.cacheRead !== undefined ? { cache_read: model.pricing.cacheRead } : {}),
      ...(model.pricing.cacheWrite !== undefined ? { cache_write: model.pricing.cacheWrite } : {}),
    },
    capabilities: model.capabilities,
    reasoning_effort: model.reasoningEffort,
    available: model.endpoints.some((e) => catalog.providers.get(e.provider)?.available === true),
  };
}
