import type { ModelPricing } from '../gateway/catalog.js';

export interface Credits {
  base: number;
  services: number;
  total: number;
}

// Credits are kept to 8 decimals, as the usage table stores them; rounding once here keeps the
// figure a caller sees equal to the one billed.
const round = (value: number) => Math.round(value * 1e8) / 1e8;

// Prompt-cache prices when the catalogue names none (decision 0006): a read at half the prompt
// price, the smallest discount a provider gives (so a reported cache read is never billed in
// full), and a write at the prompt price (OpenAI-compatible providers charge nothing extra).
const DEFAULT_CACHE_READ_SHARE = 0.5;

export function cachePrices(pricing: ModelPricing): { read: number; write: number } {
  return { read: pricing.cacheRead ?? pricing.prompt * DEFAULT_CACHE_READ_SHARE, write: pricing.cacheWrite ?? pricing.prompt };
}

/**
 * Base credits are the model's token price (per 1,000 tokens); services are the service fees.
 * `prompt` counts every prompt token; of them, `cacheRead` and `cacheWrite` (which the provider
 * reported) are priced at the cache prices and only the rest at the prompt price.
 */
export function creditsFor(
  pricing: ModelPricing,
  tokens: { prompt: number; completion: number; cacheRead?: number; cacheWrite?: number },
  { services = 0, cacheHit = false }: { services?: number; cacheHit?: boolean } = {},
): Credits {
  const read = Math.min(tokens.cacheRead ?? 0, tokens.prompt);
  const written = Math.min(tokens.cacheWrite ?? 0, tokens.prompt - read);
  const cache = cachePrices(pricing);
  const promptCredits = (tokens.prompt - read - written) * pricing.prompt + read * cache.read + written * cache.write;
  const base = cacheHit ? 0 : round((promptCredits + tokens.completion * pricing.completion) / 1000);
  const fees = round(services);
  return { base, services: fees, total: round(base + fees) };
}
