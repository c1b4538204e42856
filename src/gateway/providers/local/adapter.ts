// The `local` provider (kind: local): models that run inside the gateway process, with no key
// and no network, so the service works offline and in tests. Upstream model names (the
// catalogue's `upstream_model`): `echo` (chat, ./echo.ts) and `embed-1024` (embeddings,
// ./embed.ts). Anything else is answered as an upstream 404 would be.
import { countTokens, promptReaches } from '../../tokens.js';
import {
  ALL_PARAMETERS,
  UpstreamError,
  type ChatStream,
  type EmbeddingInput,
  type EmbeddingOutput,
  type ProviderAdapter,
  type UpstreamChatRequest,
  type UpstreamCompletion,
  type UpstreamParameter,
  type UpstreamTarget,
} from '../types.js';
import { abortedError, echoCompletion, echoStream } from './echo.js';
import { giveWay } from '../../../firewall/slices.js';
import { LOCAL_EMBED_DIMENSIONS, embedBatch, toNumberArray } from './embed.js';
import { OFF_THREAD_CHARS, offThread, stopThread } from './thread.js';

export const LOCAL_CHAT_MODELS: readonly string[] = ['echo'];
export const LOCAL_EMBEDDING_MODELS: readonly string[] = ['embed-1024'];

const EVERY_PARAMETER: ReadonlySet<UpstreamParameter> = new Set(ALL_PARAMETERS);

// Inputs embedded between two looks at the abort signal, and two turns of the event loop: the
// model runs in the web process, beside other requests.
const EMBED_SLICE = 32;

export function createLocalAdapter(): ProviderAdapter {
  return {
    supportedParameters(): ReadonlySet<UpstreamParameter> {
      return EVERY_PARAMETER;
    },

    async complete(target: UpstreamTarget, request: UpstreamChatRequest, signal: AbortSignal): Promise<UpstreamCompletion> {
      if (signal.aborted) throw abortedError();
      requireModel(target, LOCAL_CHAT_MODELS, 'chat');
      return await echoAnswer(request);
    },

    async stream(target: UpstreamTarget, request: UpstreamChatRequest, signal: AbortSignal): Promise<ChatStream> {
      if (signal.aborted) throw abortedError();
      requireModel(target, LOCAL_CHAT_MODELS, 'chat');
      return { chunks: echoStream(request, { signal }, await echoAnswer(request)) };
    },

    async embed(target: UpstreamTarget, request: EmbeddingInput, signal: AbortSignal): Promise<EmbeddingOutput> {
      if (signal.aborted) throw abortedError();
      requireModel(target, LOCAL_EMBEDDING_MODELS, 'embedding');
      if (request.dimensions !== undefined && request.dimensions !== LOCAL_EMBED_DIMENSIONS) {
        const message = `${target.modelId} has ${LOCAL_EMBED_DIMENSIONS} dimensions and cannot reduce them`;
        throw new UpstreamError('status', message, { status: 400, upstreamMessage: message });
      }
      if (request.input.reduce((sum, text) => sum + text.length, 0) >= OFF_THREAD_CHARS) {
        const { embeddings, tokens } = await offThread({ kind: 'embed', input: request.input });
        return { embeddings, usage: { prompt_tokens: tokens, total_tokens: tokens } };
      }
      const embeddings: number[][] = [];
      let tokens = 0;
      for (let i = 0; i < request.input.length; i += EMBED_SLICE) {
        if (signal.aborted) throw abortedError();
        const slice = request.input.slice(i, i + EMBED_SLICE);
        for (const vector of embedBatch(slice)) embeddings.push(toNumberArray(vector));
        for (const text of slice) tokens += countTokens(text);
        await giveWay();
      }
      return { embeddings, usage: { prompt_tokens: tokens, total_tokens: tokens } };
    },

    async close(): Promise<void> {
      await stopThread();
    },
  };
}

/** The echo's answer: on the provider's thread for a long prompt, which it reads, tokenizes and writes back. */
async function echoAnswer(request: UpstreamChatRequest): Promise<UpstreamCompletion> {
  return promptReaches(request.messages, OFF_THREAD_CHARS) ? await offThread({ kind: 'complete', request }) : echoCompletion(request);
}

function requireModel(target: UpstreamTarget, known: readonly string[], kind: 'chat' | 'embedding'): void {
  if (known.includes(target.upstreamModel)) return;
  const message = `the local provider has no ${kind} model "${target.upstreamModel}"`;
  throw new UpstreamError('status', message, { status: 404, upstreamMessage: message });
}
