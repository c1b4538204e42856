import type { CatalogModel } from '../gateway/catalog.js';
import { creditsFor } from './credits.js';
import type { UsageKind, UsageRecord } from './usageStore.js';

interface Use {
  model: CatalogModel;
  provider: string | null;
  prompt: number;
  completion: number;
}

/**
 * Tokens a piece of background work (a fact extraction) spent, per model, to be billed with what
 * it stores: one usage row per model, so that usage by model stays true. The request id of each
 * row is `<prefix>:<model id>`, unique per piece of work, so a rerun of its job bills nothing twice.
 */
export class ModelMeter {
  private readonly uses = new Map<string, Use>();

  add(model: CatalogModel, provider: string | null, tokens: { prompt: number; completion: number }): void {
    const use = this.uses.get(model.id) ?? { model, provider, prompt: 0, completion: 0 };
    use.prompt += tokens.prompt;
    use.completion += tokens.completion;
    this.uses.set(model.id, use);
  }

  records(owner: { organizationId: string; workspaceId: string }, kind: UsageKind, requestIdPrefix: string): UsageRecord[] {
    const createdAt = new Date().toISOString();
    return [...this.uses.values()].map((use) => ({
      organization_id: owner.organizationId,
      workspace_id: owner.workspaceId,
      request_id: `${requestIdPrefix}:${use.model.id}`,
      kind,
      model: use.model.id,
      provider: use.provider,
      prompt_tokens: use.prompt,
      completion_tokens: use.completion,
      cached_tokens: 0,
      credits: creditsFor(use.model.pricing, { prompt: use.prompt, completion: use.completion }),
      created_at: createdAt,
    }));
  }
}
