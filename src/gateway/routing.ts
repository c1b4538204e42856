import { ApiError, egressRefused, validationFailed, noFieldErrors, type FieldErrors } from '../errors.js';
import type { WorkspaceSettings } from '../tenancy/store.js';
import type { Catalog, CatalogModel, ChatModel, EmbeddingModel } from './catalog.js';
import type { Adapters } from './providers/index.js';
import type { ParameterLimits, ProviderAdapter, UpstreamParameter, UpstreamTarget } from './providers/types.js';

// The routing plan: which (model, provider) pairs a request may try, in order. It applies, in
// this order: aliases, the workspace policy, the caller's `provider` narrowing, the egress guard,
// and the parameters each candidate takes. Nothing here calls a provider.

export interface ProviderPreferences {
  order?: string[];
  only?: string[];
  ignore?: string[];
  allow_fallbacks?: boolean;
  require_parameters?: boolean;
}

export interface Candidate<M extends CatalogModel = CatalogModel> {
  model: M;
  target: UpstreamTarget;
  adapter: ProviderAdapter;
  /** Parameters this candidate does not take, removed from its request (never in strict mode). */
  dropped: UpstreamParameter[];
}

/** A provider that could not be tried at all (no key configured): reported in a 503's attempts. */
export interface Skipped {
  model: string;
  provider: string;
  reason: string;
  /** Its place in the chain: before the candidate of this index (the number of candidates when after all). */
  before: number;
}

export interface RoutingPlan<M extends CatalogModel = CatalogModel> {
  candidates: Candidate<M>[];
  skipped: Skipped[];
  /** Human-readable notes for the trace: dropped parameters, policy decisions. */
  notes: string[];
}

export interface RoutingInput {
  /** The `model` (as a chain of one) or `models`, as given. */
  chain: string[];
  /** The body field the chain came from, for 422 paths: 'model' or 'models'. */
  chainField: 'model' | 'models';
  type: 'chat' | 'embedding';
  provider?: ProviderPreferences;
  /** Parameters present in the request (for strict mode and for dropping). */
  parameters: UpstreamParameter[];
  reasoningEffort?: string | null;
  /** How many stop sequences the request gives: a provider may take fewer. */
  stopSequences?: number;
  /**
   * How the request asks a provider to think, when it does: by the Messages door's own `thinking`
   * (`settings`), or by a reasoning level (`level`: only for a model that takes that level).
   */
  thinking?: 'settings' | 'level';
  /** The field of the request's first image, when it has one: models without `vision` are passed over. */
  imageField?: string;
  /** Whether the organization recorded its non-EU acceptance. */
  nonEuAccepted: boolean;
  settings: Pick<WorkspaceSettings, 'allowedProviders' | 'allowedModels'>;
}

/** Capabilities a parameter needs from the model, beyond the provider taking it. */
function parameterNeedsCapability(model: ChatModel | EmbeddingModel, parameter: UpstreamParameter, input: RoutingInput): string | undefined {
  if (model.type === 'chat' && model.unsupportedParameters.includes(parameter)) return `${model.id} does not take ${parameter}`;
  if ((parameter === 'tools' || parameter === 'tool_choice' || parameter === 'parallel_tool_calls') && !model.capabilities.includes('tools')) {
    return `${model.id} does not take tools`;
  }
  if (parameter === 'response_format' && !model.capabilities.includes('json_schema')) {
    return `${model.id} does not take response_format`;
  }
  if (parameter === 'reasoning_effort' && input.reasoningEffort != null && !model.reasoningEffort.includes(input.reasoningEffort as never)) {
    const levels = model.reasoningEffort.length > 0 ? `levels: ${model.reasoningEffort.join(', ')}` : 'it takes no reasoning levels';
    return `${model.id} does not take reasoning_effort "${input.reasoningEffort}" (${levels})`;
  }
  return undefined;
}

/** Why a provider cannot take as much of a parameter as the request gives, when it cannot. */
function parameterPastLimit(model: ChatModel | EmbeddingModel, providerId: string, limits: ParameterLimits | undefined, parameter: UpstreamParameter, input: RoutingInput): string | undefined {
  if (parameter === 'stop' && limits?.stop !== undefined && input.stopSequences !== undefined && input.stopSequences > limits.stop) {
    return `${providerId} takes at most ${limits.stop} stop sequences, not ${input.stopSequences}`;
  }
  if (thinksOn(model, input) && limits?.notWithThinking?.includes(parameter)) {
    return `${providerId} takes no ${parameter} with thinking`;
  }
  return undefined;
}

/** Whether the model is asked to think: a reasoning level it does not take is dropped, and asks for nothing. */
function thinksOn(model: ChatModel | EmbeddingModel, input: RoutingInput): boolean {
  if (input.thinking !== 'level') return input.thinking === 'settings';
  return model.type === 'chat' && model.reasoningEffort.includes(input.reasoningEffort as never);
}

type ChainInput = Pick<RoutingInput, 'chain' | 'chainField' | 'type' | 'settings'>;

/** The chain a body names: its `model` as a chain of one, else its `models`. */
export function chainOf(body: { model?: string; models?: string[] }): Pick<RoutingInput, 'chain' | 'chainField'> {
  return body.model !== undefined ? { chain: [body.model], chainField: 'model' } : { chain: body.models ?? [], chainField: 'models' };
}

/** The 422 of a chain that names an unknown, wrong-type or disallowed model, for a caller that routes nowhere (count_tokens). */
export function checkModelChain(catalog: Catalog, input: ChainInput): void {
  const { errors, unknownOnly } = expand(catalog, input);
  if (Object.keys(errors).length > 0) throw chainRefused(errors, unknownOnly);
}

/** The 422 of a chain's errors; one naming only models the catalogue lacks has OpenAI's code for them. */
function chainRefused(errors: FieldErrors, unknownOnly: boolean) {
  return validationFailed(errors, undefined, unknownOnly ? 'model_not_found' : 'validation_failed');
}

function expand(catalog: Catalog, input: ChainInput): { models: CatalogModel[]; errors: FieldErrors; unknownOnly: boolean } {
  const errors: FieldErrors = noFieldErrors();
  const seen = new Set<string>();
  const models: CatalogModel[] = [];
  let unknownOnly = true;
  const refuse = (field: string, message: string) => {
    (errors[field] ??= []).push(message);
    unknownOnly = false;
  };
  input.chain.forEach((slug, index) => {
    const field = input.chainField === 'model' ? 'model' : `models.${index}`;
    const ids = catalog.aliases.get(slug) ?? [slug];
    for (const id of ids) {
      const model = catalog.models.get(id);
      if (!model) {
        (errors[field] ??= []).push(`unknown model "${id}"; GET /v1/models lists them`);
        continue;
      }
      if (model.type !== input.type) {
        refuse(field, `"${id}" is ${withArticle(model.type)} model, not ${withArticle(input.type)} model`);
        continue;
      }
      if (input.settings.allowedModels && !input.settings.allowedModels.includes(id)) {
        refuse(field, `"${id}" is not allowed by the workspace's routing policy`);
        continue;
      }
      if (!seen.has(id)) {
        seen.add(id);
        models.push(model);
      }
    }
  });
  return { models, errors, unknownOnly };
}

function withArticle(type: CatalogModel['type']): string {
  return type === 'embedding' ? 'an embedding' : `a ${type}`;
}

/** Providers for one model: policy ∩ only − ignore, ordered by `order` then catalogue order. */
function providersFor(model: CatalogModel, input: RoutingInput) {
  const prefs = input.provider ?? {};
  let endpoints = model.endpoints.filter(
    (e) =>
      (!input.settings.allowedProviders || input.settings.allowedProviders.includes(e.provider)) &&
      (!prefs.only || prefs.only.includes(e.provider)) &&
      !(prefs.ignore ?? []).includes(e.provider),
  );
  const order = prefs.order ?? [];
  const rank = (provider: string) => {
    const at = order.indexOf(provider);
    return at === -1 ? order.length : at;
  };
  endpoints = [...endpoints].sort((a, b) => rank(a.provider) - rank(b.provider));
  if (prefs.allow_fallbacks === false) {
    endpoints = order.length > 0 ? endpoints.filter((e) => order.includes(e.provider)) : endpoints.slice(0, 1);
  }
  return endpoints;
}

export function planRoute<M extends CatalogModel>(catalog: Catalog, adapters: Adapters, input: RoutingInput): RoutingPlan<M> {
  const { models, errors, unknownOnly } = expand(catalog, input);
  if (Object.keys(errors).length > 0) throw chainRefused(errors, unknownOnly);

  const strict = input.provider?.require_parameters === true;
  const candidates: Candidate<M>[] = [];
  const skipped: Skipped[] = [];
  const notes: string[] = [];
  const strictRefusals: string[] = [];
  const blindToImages: string[] = [];
  let refusedForEgress = 0;

  for (const model of models) {
    // Dropping the image would answer another question than the one asked; the provider's own 400
    // would name neither the image nor a model that reads it.
    if (input.imageField !== undefined && model.type === 'chat' && !model.capabilities.includes('vision')) {
      blindToImages.push(model.id);
      notes.push(`passed over ${model.id}: it takes no images (${input.imageField} is one)`);
      continue;
    }
    for (const endpoint of providersFor(model, input)) {
      const provider = catalog.providers.get(endpoint.provider)!;
      if (endpoint.region !== 'eu' && !input.nonEuAccepted) {
        refusedForEgress += 1;
        continue;
      }
      if (!provider.available) {
        skipped.push({ model: model.id, provider: provider.id, reason: provider.unavailableReason ?? 'not configured', before: candidates.length });
        continue;
      }
      const adapter = adapters[provider.kind];
      const target: UpstreamTarget = {
        provider,
        upstreamModel: endpoint.upstreamModel,
        modelId: model.id,
        ...(model.type === 'chat' ? { maxOutputTokens: model.maxOutputTokens } : {}),
      };
      const supported = adapter.supportedParameters(target);
      const limits = adapter.parameterLimits?.(target);
      const refused = input.parameters.flatMap((parameter) => {
        if (!supported.has(parameter)) return [{ parameter, why: `${provider.id} does not take ${parameter}` }];
        const why = parameterNeedsCapability(model, parameter, input) ?? parameterPastLimit(model, provider.id, limits, parameter, input);
        return why ? [{ parameter, why }] : [];
      });
      if (refused.length > 0 && strict) {
        strictRefusals.push(...refused.map((r) => r.why));
        continue;
      }
      for (const r of refused) notes.push(`dropped ${r.parameter} for ${model.id} via ${provider.id}: ${r.why}`);
      candidates.push({ model: model as M, target, adapter, dropped: refused.map((r) => r.parameter) });
    }
  }

  if (candidates.length === 0) {
    if (blindToImages.length === models.length && input.imageField !== undefined) {
      const readers = [...catalog.models.values()].filter((m) => m.type === 'chat' && m.capabilities.includes('vision')).length;
      throw validationFailed(
        {
          [input.imageField]: [
            `is an image, and ${blindToImages.join(', ')} ${blindToImages.length === 1 ? 'takes' : 'take'} no images; ` +
              (readers > 0 ? 'choose a model with the vision capability (GET /v1/models lists capabilities)' : 'no model of this catalogue takes images'),
          ],
        },
        'no model in the chain takes images',
      );
    }
    if (strictRefusals.length > 0) {
      throw validationFailed(
        { 'provider.require_parameters': [...new Set(strictRefusals)] },
        'no provider in the chain takes every parameter of this request',
      );
    }
    if (refusedForEgress > 0 && skipped.length === 0) {
      throw egressRefused(
        'every model in the chain is served outside the EU, and the organization has not recorded the non-EU routing acceptance',
      );
    }
    if (skipped.length === 0) {
      // Without preferences of the caller's it is the workspace's policy alone: named so, on the
      // chain's field (an embeddings request has no `provider` field to blame).
      if (input.provider === undefined) {
        throw validationFailed(
          { [input.chainField]: ["the workspace's allowed_providers leaves no provider for any model in the chain"] },
          "no provider is left for this chain after the workspace's routing policy (allowed_providers)",
        );
      }
      throw new ApiError({
        status: 422,
        message: 'no provider is left for this chain after the workspace policy and the provider preferences',
        type: 'invalid_request_error',
        code: 'validation_failed',
        errors: { provider: ['leaves no provider for any model in the chain'] },
      });
    }
  }
  return { candidates, skipped, notes };
}
