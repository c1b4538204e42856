// The adapter for Anthropic's own Messages API (catalogue `kind: anthropic`): POST
// {base_url}/messages with `x-api-key` and `anthropic-version`. The gateway hands it chat requests
// (masked, our fields removed); it speaks Messages upstream and answers OpenAI-shaped, reporting
// the prompt-cache reads and writes that Anthropic bills apart. Timeouts as in the OpenAI adapter:
// the provider's timeout_ms for the response headers and between two pieces of the body.
import type { CatalogProvider } from '../../catalog.js';
import { abortedError, type CallContext, protocolError, transportError } from '../openai/errors.js';
import { CONNECTIONS_PER_PROVIDER, PoolRegistry } from '../openai/pool.js';
import {
  type ChatStream,
  type EmbeddingOutput,
  type ParameterLimits,
  type ProviderAdapter,
  type UpstreamChatRequest,
  type UpstreamChunk,
  type UpstreamCompletion,
  UpstreamError,
  type UpstreamParameter,
  type UpstreamTarget,
} from '../types.js';
import { jsonOf, post } from './call.js';
import { ANTHROPIC_LIMITS, ANTHROPIC_PARAMETERS, messagesRequestOf } from './request.js';
import { toCompletion } from './response.js';
import { MessagesStreamTranslator, sseEvents } from './stream.js';

export const ANTHROPIC_VERSION = '2023-06-01';

interface Endpoint {
  providerId: string;
  origin: string;
  path: string;
  headers: Record<string, string>;
  apiKey: string | undefined;
}

export function createAnthropicAdapter(): ProviderAdapter {
  return new AnthropicAdapter();
}

class AnthropicAdapter implements ProviderAdapter {
  private readonly pools = new PoolRegistry({ connections: CONNECTIONS_PER_PROVIDER, connectTimeoutMs: 5_000, keepAliveTimeoutMs: 30_000, closeGraceMs: 2_000 });
  private readonly endpoints = new WeakMap<CatalogProvider, Endpoint>();

  supportedParameters(): ReadonlySet<UpstreamParameter> {
    return ANTHROPIC_PARAMETERS;
  }

  parameterLimits(): ParameterLimits {
    return ANTHROPIC_LIMITS;
  }

  async complete(target: UpstreamTarget, request: UpstreamChatRequest, signal: AbortSignal): Promise<UpstreamCompletion> {
    const ep = this.endpoint(target.provider);
    const ctx = contextOf(target.provider, ep, signal);
    const { body, notes } = messagesRequestOf(target, request, false);
    const response = await post({ dispatcher: this.pools.get(ep.origin), path: ep.path, headers: ep.headers, body, ctx });
    const raw = await jsonOf(response, ctx);
    let completion: UpstreamCompletion;
    try {
      completion = toCompletion(raw, ep.providerId);
    } catch (err) {
      throw protocolError(ep.providerId, (err as Error).message);
    }
    return notes.length > 0 ? { ...completion, notes } : completion;
  }

  async stream(target: UpstreamTarget, request: UpstreamChatRequest, signal: AbortSignal): Promise<ChatStream> {
    const ep = this.endpoint(target.provider);
    const ctx = contextOf(target.provider, ep, signal);
    const { body, notes } = messagesRequestOf(target, request, true);
    const response = await post({
      dispatcher: this.pools.get(ep.origin),
      path: ep.path,
      headers: { ...ep.headers, accept: 'text/event-stream' },
      body,
      ctx,
    });
    const chunks = translated(response.body, new MessagesStreamTranslator(ep.providerId), ctx);
    // Resolves once the first real output is in (not at message_start), so that a provider failing
    // before it lets the gateway fall back unseen.
    const first = await chunks.next();
    if (first.done) throw protocolError(ep.providerId, 'the stream ended before any output');
    return { chunks: startingWith(first.value, chunks), ...(notes.length > 0 ? { notes } : {}) };
  }

  embed(): Promise<EmbeddingOutput> {
    return Promise.reject(new UpstreamError('status', 'the Messages API serves no embeddings', { status: 400 }));
  }

  close(): Promise<void> {
    return this.pools.close();
  }

  private endpoint(provider: CatalogProvider): Endpoint {
    let ep = this.endpoints.get(provider);
    if (!ep) {
      if (!provider.baseUrl) throw new UpstreamError('connect', `${provider.id}: no base_url is configured`);
      const url = new URL(provider.baseUrl);
      const headers: Record<string, string> = { 'content-type': 'application/json', 'anthropic-version': ANTHROPIC_VERSION, 'user-agent': 'polder-gateway' };
      if (provider.apiKey) headers['x-api-key'] = provider.apiKey;
      ep = { providerId: provider.id, origin: url.origin, path: `${url.pathname.replace(/\/+$/, '')}/messages${url.search}`, headers, apiKey: provider.apiKey };
      this.endpoints.set(provider, ep);
    }
    return ep;
  }
}

function contextOf(provider: CatalogProvider, ep: Endpoint, signal: AbortSignal): CallContext {
  return { providerId: ep.providerId, timeoutMs: provider.timeoutMs, bodyTimeoutMs: provider.timeoutMs, signal, apiKey: ep.apiKey };
}

async function* translated(body: AsyncIterable<Buffer>, translator: MessagesStreamTranslator, ctx: CallContext): AsyncGenerator<UpstreamChunk> {
  try {
    for await (const event of sseEvents(body)) {
      const chunk = translator.translate(event);
      if (chunk) yield chunk;
      if (translator.ended) return;
    }
  } catch (err) {
    throw err instanceof UpstreamError ? err : transportError(err, ctx);
  }
  if (ctx.signal.aborted) throw abortedError(ctx.providerId);
  throw protocolError(ctx.providerId, 'the stream ended without message_stop');
}

async function* startingWith(first: UpstreamChunk, rest: AsyncGenerator<UpstreamChunk>): AsyncGenerator<UpstreamChunk> {
  yield first;
  yield* rest;
}
