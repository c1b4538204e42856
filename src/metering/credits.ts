import type { ModelPricing } from '../gateway/catalog.js';

export interface Credits {
  base: number;
  services: number;
  total: number;
}

// Credits are kept to 8 decimals, as the usage table stores them; rounding once here keeps the
// figure a caller sees equal to the one billed.
const round = (value: number) => Math.round(value * 1e8) / 1e8;

/** Base credits are the model's token price (per 1,000 tokens); services are the service fees. */
export function creditsFor(
  pricing: ModelPricing,
  tokens: { prompt: number; completion: number },
  { services = 0, cacheHit = false }: { services?: number; cacheHit?: boolean } = {},
): Credits {
  const base = cacheHit ? 0 : round((tokens.prompt * pricing.prompt + tokens.completion * pricing.completion) / 1000);
  const fees = round(services);
  return { base, services: fees, total: round(base + fees) };
}
