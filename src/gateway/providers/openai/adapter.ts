// The adapter for every provider that speaks OpenAI's wire format (POST {base_url}/chat/completions
// and /embeddings with a bearer key): Mistral, OpenAI, Anthropic's compatible endpoint,
// Scaleway, vLLM, Ollama, llama.cpp. What differs between them is data in parameters.ts.
//
// Timeouts, per request:
// - connect: connectTimeoutMs (adapter option, default 5 s), for TCP + TLS set-up;
// - response headers: the provider's timeoutMs. It fires when a provider accepts the
//   connection and never answers, so the gateway can fall back;
// - body: bodyTimeoutMs between two pieces of the body (default the provider's timeoutMs), so a
//   stream that stalls mid-way fails instead of hanging.
//
// Hot path: the per-provider work (URL parsing, headers, the compiled parameter profile) is done
// once and cached on the provider object; pools are per origin and kept. A request costs one
// JSON.stringify, one undici request and one JSON.parse of the answer (or one per SSE event).
import type { CatalogProvider, ProviderProfileName } from '../../catalog.js';
import {
  type ChatStream,
  type EmbeddingInput,
  type EmbeddingOutput,
  type ParameterLimits,
  type ProviderAdapter,
  type UpstreamChatRequest,
  type UpstreamCompletion,
  UpstreamError,
  type UpstreamParameter,
  type UpstreamTarget,
} from '../types.js';
import { call } from './call.js';
import { type CallContext, errorFromBody, isRecord } from './errors.js';
import { type CompiledProfile, ProfileRegistry, type ProviderProfile } from './parameters.js';
import { CONNECTIONS_PER_PROVIDER, PoolRegistry } from './pool.js';
import { chunksAfterPrefill, completionAfterPrefill, prefillOf } from './prefill.js';
import { buildChatBody, buildEmbeddingBody } from './request.js';
import { completionAsChunk, toCompletion, toEmbeddings } from './response.js';
import { chunksOf } from './stream.js';

export interface OpenAiAdapterOptions {
  /** TCP + TLS connection set-up. Default 5,000 ms. */
  connectTimeoutMs?: number;
  /** Silence allowed between two pieces of a response body. Default: the provider's timeoutMs. */
  bodyTimeoutMs?: number;
  /** Sockets per provider origin. Default 64. */
  connections?: number;
  /** Idle keep-alive sockets are closed after this (or the server's hint). Default 30,000 ms. */
  keepAliveTimeoutMs?: number;
  /** close() lets running requests finish this long before destroying their sockets. Default 2,000 ms. */
  closeGraceMs?: number;
  /** Parameter profiles to replace, by profile name (see parameters.ts). */
  profiles?: Partial<Record<ProviderProfileName, ProviderProfile>>;
  /** Sent as User-Agent. Default "polder-gateway". */
  userAgent?: string;
}

/** Everything about a provider that does not change per request. */
interface Endpoint {
  readonly providerId: string;
  readonly origin: string;
  readonly chatPath: string;
  readonly embeddingsPath: string;
  readonly jsonHeaders: Readonly<Record<string, string>>;
  readonly streamHeaders: Readonly<Record<string, string>>;
  readonly profile: CompiledProfile;
  readonly apiKey: string | undefined;
}

/** The prefill a provider that continues one was asked to continue (its answer may write it again). */
function continuedPrefill(profile: CompiledProfile, request: UpstreamChatRequest): string | undefined {
  return profile.prefill === undefined ? undefined : prefillOf(request);
}

export function createOpenAiAdapter(options: OpenAiAdapterOptions = {}): ProviderAdapter {
  return new OpenAiAdapter(options);
}

class OpenAiAdapter implements ProviderAdapter {
  private readonly pools: PoolRegistry;
  private readonly profiles: ProfileRegistry;
  private readonly endpoints = new WeakMap<CatalogProvider, Endpoint>();
  private readonly bodyTimeoutMs: number | undefined;
  private readonly userAgent: string;

  constructor(options: OpenAiAdapterOptions) {
    this.pools = new PoolRegistry({
      connections: options.connections ?? CONNECTIONS_PER_PROVIDER,
      connectTimeoutMs: options.connectTimeoutMs ?? 5_000,
      keepAliveTimeoutMs: options.keepAliveTimeoutMs ?? 30_000,
      closeGraceMs: options.closeGraceMs ?? 2_000,
    });
    this.profiles = new ProfileRegistry(options.profiles);
    this.bodyTimeoutMs = options.bodyTimeoutMs;
    this.userAgent = options.userAgent ?? 'polder-gateway';
  }

  supportedParameters(target: UpstreamTarget): ReadonlySet<UpstreamParameter> {
    return this.profiles.get(target.provider.profile).supported;
  }

  parameterLimits(target: UpstreamTarget): ParameterLimits {
    return this.profiles.get(target.provider.profile).limits;
  }

  async complete(target: UpstreamTarget, request: UpstreamChatRequest, signal: AbortSignal): Promise<UpstreamCompletion> {
    const ep = this.endpoint(target.provider);
    const ctx = this.context(target.provider, ep, signal);
    const body = buildChatBody(ep.profile, target.upstreamModel, request, false);
    const raw = await this.post(ep, ep.chatPath, body, ep.jsonHeaders, ctx);
    if (isErrorBody(raw)) throw errorFromBody(raw, ctx);
    const prefill = continuedPrefill(ep.profile, request);
    return prefill === undefined ? toCompletion(raw, ep.providerId) : completionAfterPrefill(toCompletion(raw, ep.providerId), prefill);
  }

  async stream(target: UpstreamTarget, request: UpstreamChatRequest, signal: AbortSignal): Promise<ChatStream> {
    const ep = this.endpoint(target.provider);
    const ctx = this.context(target.provider, ep, signal);
    const body = buildChatBody(ep.profile, target.upstreamModel, request, true);
    const result = await call({
      dispatcher: this.pools.get(ep.origin),
      path: ep.chatPath,
      headers: ep.streamHeaders,
      body,
      ctx,
      sse: true,
    });
    const prefill = continuedPrefill(ep.profile, request);
    // Resolves only once the first chunk is in, so an early failure rejects here.
    if ('stream' in result) return { chunks: prefill === undefined ? result.stream : chunksAfterPrefill(result.stream, prefill) };
    // A server that ignored `stream: true` and answered with one JSON completion.
    const raw = result.json;
    if (isErrorBody(raw)) throw errorFromBody(raw, ctx);
    const completion = toCompletion(raw, ep.providerId);
    return { chunks: chunksOf([completionAsChunk(prefill === undefined ? completion : completionAfterPrefill(completion, prefill))]) };
  }

  async embed(target: UpstreamTarget, request: EmbeddingInput, signal: AbortSignal): Promise<EmbeddingOutput> {
    const ep = this.endpoint(target.provider);
    if (request.input.length === 0) return { embeddings: [] };
    const ctx = this.context(target.provider, ep, signal);
    const body = buildEmbeddingBody(ep.profile, target.upstreamModel, request);
    const raw = await this.post(ep, ep.embeddingsPath, body, ep.jsonHeaders, ctx);
    if (isErrorBody(raw)) throw errorFromBody(raw, ctx);
    return toEmbeddings(raw, request.input.length, ep.providerId);
  }

  close(): Promise<void> {
    return this.pools.close();
  }

  /** A JSON call: the parsed answer of a 2xx response, or an UpstreamError. */
  private async post(ep: Endpoint, path: string, body: string, headers: Readonly<Record<string, string>>, ctx: CallContext): Promise<unknown> {
    const result = await call({ dispatcher: this.pools.get(ep.origin), path, headers, body, ctx, sse: false });
    return (result as { json: unknown }).json;
  }

  private context(provider: CatalogProvider, ep: Endpoint, signal: AbortSignal): CallContext {
    return {
      providerId: ep.providerId,
      timeoutMs: provider.timeoutMs,
      bodyTimeoutMs: this.bodyTimeoutMs ?? provider.timeoutMs,
      signal,
      apiKey: ep.apiKey,
    };
  }

  private endpoint(provider: CatalogProvider): Endpoint {
    let ep = this.endpoints.get(provider);
    if (!ep) {
      ep = this.makeEndpoint(provider);
      this.endpoints.set(provider, ep);
    }
    return ep;
  }

  private makeEndpoint(provider: CatalogProvider): Endpoint {
    if (!provider.baseUrl) throw new UpstreamError('connect', `${provider.id}: no base_url is configured`);
    let url: URL;
    try {
      url = new URL(provider.baseUrl);
    } catch {
      throw new UpstreamError('connect', `${provider.id}: base_url is not a valid URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new UpstreamError('connect', `${provider.id}: base_url must be http or https`);
    }
    const base = url.pathname.replace(/\/+$/, '');
    const common: Record<string, string> = { 'content-type': 'application/json', 'user-agent': this.userAgent };
    const apiKey = provider.apiKey;
    if (apiKey) common.authorization = `Bearer ${apiKey}`;
    return {
      providerId: provider.id,
      origin: url.origin,
      // A query string (e.g. an api-version) is kept on every call.
      chatPath: `${base}/chat/completions${url.search}`,
      embeddingsPath: `${base}/embeddings${url.search}`,
      jsonHeaders: Object.freeze({ ...common, accept: 'application/json' }),
      streamHeaders: Object.freeze({ ...common, accept: 'text/event-stream' }),
      profile: this.profiles.get(provider.profile),
      apiKey,
    };
  }
}

/** `{"error": …}` where a result was expected. */
function isErrorBody(raw: unknown): raw is Record<string, unknown> {
  return isRecord(raw) && raw.error !== undefined && raw.error !== null && raw.choices === undefined && raw.data === undefined;
}
