import type { ProviderKind } from '../catalog.js';
import { createAnthropicAdapter } from './anthropic/adapter.js';
import { createLocalAdapter } from './local/adapter.js';
import { createOpenAiAdapter } from './openai/adapter.js';
import type { ProviderAdapter } from './types.js';

export type Adapters = Record<ProviderKind, ProviderAdapter>;

/** One adapter per wire format; each keeps its own connection pools. */
export function createAdapters(): Adapters {
  return { openai: createOpenAiAdapter(), anthropic: createAnthropicAdapter(), local: createLocalAdapter() };
}

export async function closeAdapters(adapters: Adapters): Promise<void> {
  await Promise.all(Object.values(adapters).map((adapter) => adapter.close()));
}
