import { actedBy, auditEntry } from '../audit/entries.js';
import { DEFAULT_FIREWALL_MAX_CHARS } from '../config.js';
import type { Pool } from '../db/pool.js';
import { createFirewall, type Firewall } from '../firewall/index.js';
import { countCacheResult, countFirewallDetections } from '../metrics.js';
import { answerableError, ApiError, clientGone, egressRefused, insufficientScope, isRecordedRefusal, RecordsRefused, refusalDetails, ServerStopping, serverStopping } from '../errors.js';
import type { ChatCompletionRequest } from '../generated/openapi.js';
import type { Logger } from '../logger.js';
import type { Credits } from '../metering/credits.js';
import type { GroupCommitter } from '../metering/groupCommit.js';
import { subjectOf, type RequestRecords, type StoredResponseRecord } from '../metering/records.js';
import { UsageMeter } from '../metering/usageLines.js';
import { claimOrReplay, releaseRequestId, settledRequest, type AnswerSubjects } from '../metering/requestIds.js';
import { type Admission, type Demand, type LimitGate } from '../limits/gate.js';
import { creditsFor } from '../metering/credits.js';
import { MemoryPresence, retrieve, type Retrieval } from '../memory/retrieval.js';
import type { Principal } from '../tenancy/store.js';
import type { TraceRecord } from '../traces/store.js';
import type { Catalog, ChatModel } from './catalog.js';
import { contentKindOf, refuseBeyondFirewallBound, restoreCompletion, StreamUnmasker, upstreamPrompt } from './chatFirewall.js';
import { checkChatRules, firstImageField, upstreamRequestOf, withoutParameters } from './chatRequest.js';
import { refusePromptBeyondContext } from './answerRoom.js';
import { chunksOf, CompletionAccumulator } from './completionStream.js';
import { abortedBy, ChainFailed, failureOf, firstThatAnswers, type Attempt } from './fallback.js';
import type { Adapters } from './providers/index.js';
import {
  asRetrievedKnowledge,
  type AnthropicSettings,
  UpstreamError,
  type AnswerRun,
  type PromptUsage,
  type UpstreamChatRequest,
  type UpstreamChunk,
  type UpstreamCompletion,
  type UpstreamParameter,
} from './providers/types.js';
import { CACHE_TTL_SECONDS, cacheKey, findCachedResponse, type CachedResponse, type CacheKeyLookup } from './responseCache.js';
import { chainOf, planRoute, type Candidate, type RoutingPlan } from './routing.js';
import { answerTokens, countPromptTokens, countPromptTokensPaced, isLongPrompt, usageBeyondBounds } from './tokens.js';

// A chat request, in order: rules the schema cannot say → idempotency → routing plan (aliases,
// policy, narrowing, egress guard) → response cache → provider call with fallback → usage and
// credits → one group commit (replayable response, usage, trace, audit, thread) → the answer.

export interface TraceContext {
  traceId: string;
  parentSpanId: string;
}

export interface ChatContext {
  principal: Principal;
  requestId: string;
  /** The caller sent its own request id: a retry may follow, so the id is claimed first. */
  callerRequestId: boolean;
  /** The presence key of this process, which its claim of the id carries (metering/requestIds.ts). */
  claimHolder?: number;
  application: string | null;
  traceContext: TraceContext | null;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  log: Logger;
  /** What a door onto the chat service says about the request (its own id, what it left out), for the trace. */
  notes?: readonly string[];
  /**
   * The Messages door's thinking settings as its caller gave them, for a native Anthropic provider
   * (the chat request carries the `reasoning_effort` they stand for, for the others). Not chat
   * fields: chat's callers ask for reasoning with `reasoning_effort`, and the `thinking` some of them
   * send along is another vendor's, of another shape.
   */
  anthropic?: AnthropicSettings;
  /**
   * A door that keeps its answer (the Responses door's `store`) gives the row to keep, made from the
   * answer (its body, and its `orders`); it is written in the same group commit as the request's
   * other records.
   */
  keepAnswer?: (answer: Pick<ChatReply, 'body' | 'orders'>) => StoredResponseRecord | undefined;
  /**
   * A door names its caller's field that a field of the chat request came from (`messages.1.content.1`
   * may be `input.0.content.1`), so that a 422 names what the caller sent.
   */
  fieldOf?: (chatField: string) => string;
  /**
   * Given, once the request's firewall exists, what restores its placeholders in a text a door
   * shows: the Responses door shows a native provider's thinking restored, while the blocks
   * themselves go back as the provider signed them, masked.
   */
  withRestorer?: (restore: (text: string) => string) => void;
  /** A door measured the prompt against the context already (capWithinContext): chat need not again. */
  contextChecked?: true;
  /** The caller's name for the answer's cap (`max_output_tokens` through the Responses door), which a 429 or 402 advises on. */
  capField?: string;
  /**
   * A door's fields that the chat body does not hold but that change what the request does (the
   * Responses door's `store`): part of its identity, so a retry under its id must repeat them.
   */
  doorFields?: Record<string, unknown>;
}

export interface ChatReply {
  body: Record<string, unknown>;
  headers: Record<string, string>;
  /**
   * By choice index, the order a choice's stream gave its content, refusal and tool calls in, where
   * not the usual one (UpstreamChoice's `order`): not part of the body, but kept with it for a
   * replay, which streams them in that order again and from which a door lists them so.
   */
  orders?: Record<number, AnswerRun[]>;
}

/** Where a streamed answer goes: Server-Sent Events on the client's response. */
export interface SseSink {
  /**
   * `promptTokens` tells the prompt's count for a door that shows it before the answer (Messages'
   * `message_start`): the provider's own when it gave one before its first output (Anthropic's,
   * with its cache reads and writes), what the answer a replay or a cache hit repeats reported, or
   * else the prompt as it left (masked, with what memory added), counted only when called.
   */
  open(headers: Record<string, string>, promptTokens: () => Promise<PromptUsage>): void;
  send(data: unknown): Promise<void>;
  /** The model is at work with nothing to send yet (a chunk's `progress`): `data` is a frame without choices. */
  progress?(data: unknown): Promise<void>;
  /** `done` ends it as answered ([DONE]); `failed` after an error frame; `closed` when the client left. */
  end(outcome: StreamEnd): void;
}

export type StreamEnd = 'done' | 'failed' | 'closed';

type CacheStatus = 'HIT' | 'MISS' | 'BYPASS';

interface Prepared {
  started: number;
  body: ChatCompletionRequest;
  /** Only when the caller chose the request id: a retry is compared against it. */
  hash: Buffer | undefined;
  plan: RoutingPlan<ChatModel>;
  request: UpstreamChatRequest;
  cacheStatus: CacheStatus;
  cacheKey: Buffer | undefined;
  cached: CachedResponse | undefined;
  claimed: boolean;
  /** Present when the firewall is on: it masked the request and restores the reply. */
  firewall: Firewall | undefined;
  retrieval: Retrieval;
  /** What the limits let it take (nothing for a cache hit: it is never refused). */
  admission: Admission;
}

/** What a trace needs of a request, which a refused one has too. */
type TracedRequest = Pick<Prepared, 'body' | 'started' | 'cacheStatus' | 'retrieval' | 'firewall'>;

/** The provider a request was sent to last, with what it was sent: it has read the prompt. */
interface Asked {
  candidate: Candidate<ChatModel>;
  request: UpstreamChatRequest;
}

interface Answer {
  completion: UpstreamCompletion;
  model: ChatModel;
  provider: string;
  attempts: Attempt[];
  notes: string[];
  sentUpstream: UpstreamChatRequest;
}

interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number; cache_write_tokens?: number };
  completion_tokens_details?: { reasoning_tokens: number };
  credits: Credits;
}

export interface ChatServiceDeps {
  pool: Pool;
  catalog: Catalog;
  adapters: Adapters;
  committer: GroupCommitter;
  cacheKeys: CacheKeyLookup;
  gate: LimitGate;
  /** The most characters the firewall scans for one request (FIREWALL_MAX_CHARS). */
  firewallMaxChars?: number;
}

export class ChatService {
  private readonly presence: MemoryPresence;

  constructor(private readonly deps: ChatServiceDeps) {
    this.presence = new MemoryPresence(deps.pool);
  }

  /**
   * The firewall's own bound (413), for a door that checks the prompt against the context before it
   * hands the request over: a prompt too long to scan is told so first, as on the chat API.
   */
  refuseBeyondFirewallBound(principal: Principal, body: ChatCompletionRequest): void {
    if (!(body.firewall ?? principal.settings.firewallDefault)) return;
    // The body's own fields: the upstream request copies them as they are.
    const prompt = { messages: body.messages, tools: body.tools, response_format: body.response_format, stop: body.stop ?? undefined };
    refuseBeyondFirewallBound(prompt, this.deps.firewallMaxChars ?? DEFAULT_FIREWALL_MAX_CHARS);
  }

  async complete(ctx: ChatContext, body: ChatCompletionRequest): Promise<ChatReply> {
    const started = performance.now();
    const prepared = await this.prepare(ctx, body, started);
    if ('replay' in prepared) return prepared.replay;
    await this.refuseIfClosed(ctx, prepared);
    // The provider asked last: when the client goes away while it answers, it has the prompt.
    let asked: Asked | undefined;
    try {
      const answer = prepared.cached
        ? this.fromCache(prepared, prepared.cached)
        : await this.callChain(prepared, (candidate, request) => {
            asked = { candidate, request };
            return candidate.adapter.complete(candidate.target, request, ctx.signal);
          });
      return await this.settle(ctx, prepared, answer);
    } catch (caught) {
      return this.failUnanswered(ctx, prepared, caught, asked);
    }
  }

  /**
   * A client gone (or the web process stopping) before any provider was asked, while the firewall
   * read a long prompt or memory was searched: nothing was spent for it, so nothing is billed or
   * traced (the log has its 499), and its id is free for a retry. Asked with the signal already
   * aborted, a provider was billed the prompt it never read, once per SDK retry.
   */
  private async refuseIfClosed(ctx: ChatContext, prepared: Prepared): Promise<void> {
    if (!ctx.signal.aborted) return;
    this.deps.gate.release(prepared.admission);
    if (prepared.claimed) await releaseRequestId(this.deps.pool, ctx.principal.workspaceId, ctx.requestId);
    throw ctx.signal.reason instanceof ServerStopping ? serverStopping() : clientGone();
  }

  /**
   * Records a request that got no answer, and throws what its client is told. When the client
   * closed it (or the web process stopped it) while a provider had the prompt, that prompt is billed
   * as a stream the client closed is (there is no answer to bill), traced as 499 (503 when
   * stopped); a retry under its id replaces the bill. A stream closed before its first output was
   * billed nothing, and a client could send large prompts for free that way.
   */
  private async failUnanswered(ctx: ChatContext, prepared: Prepared, caught: unknown, asked: Asked | undefined): Promise<never> {
    const err = abortedBy(caught, ctx.signal);
    if (ctx.signal.aborted && asked && err instanceof ChainFailed) {
      const { candidate, request } = asked;
      const unanswered: Answer = {
        completion: { id: ctx.requestId, created: Math.floor(Date.now() / 1000), choices: [] },
        model: candidate.model,
        provider: candidate.target.provider.id,
        attempts: err.attempts,
        notes: prepared.plan.notes,
        sentUpstream: request,
      };
      await this.settleClosedStream(ctx, prepared, unanswered, ctx.signal.reason instanceof ServerStopping);
    } else {
      await this.fail(ctx, prepared, err);
    }
    throw err instanceof ChainFailed ? err.apiError : err;
  }

  async stream(ctx: ChatContext, body: ChatCompletionRequest, sink: SseSink): Promise<void> {
    const started = performance.now();
    const prepared = await this.prepare(ctx, body, started);
    const includeUsage = body.stream_options?.include_usage === true;
    if ('replay' in prepared) {
      await replayAsStream(sink, prepared.replay, includeUsage);
      return;
    }
    await this.refuseIfClosed(ctx, prepared);
    if (prepared.cached) {
      const reply = await this.settle(ctx, prepared, this.fromCache(prepared, prepared.cached));
      await replayAsStream(sink, reply, includeUsage);
      return;
    }

    let served;
    let asked: Asked | undefined;
    try {
      served = await this.callChainStreaming(prepared, ctx.signal, (candidate, request) => (asked = { candidate, request }));
    } catch (caught) {
      return this.failUnanswered(ctx, prepared, caught, asked);
    }
    const { answerOf, chunks, candidate } = served;
    const accumulator = new CompletionAccumulator();
    // Asked once the first chunk is in the accumulator: a provider's count came before it or with it.
    sink.open(
      { ...replyHeaders(candidate.model.id, candidate.target.provider.id, prepared.cacheStatus), ...prepared.admission.headers },
      async () => accumulator.promptCount ?? { prompt_tokens: await countPromptTokensPaced(prepared.request) },
    );
    const created = Math.floor(Date.now() / 1000);
    const frame = (choices: UpstreamChunk['choices']) => ({
      id: ctx.requestId,
      object: 'chat.completion.chunk',
      created,
      model: candidate.model.id,
      choices,
    });
    const unmasker = prepared.firewall
      ? new StreamUnmasker(prepared.firewall, contentKindOf(withoutParameters(prepared.request, candidate.dropped)))
      : undefined;
    const opened = new Set<number>();
    const finishes = new Map<number, string>();
    const stopSequences = new Map<number, string>();
    try {
      for await (const chunk of chunks) {
        accumulator.add(chunk);
        const choices = chunk.choices.flatMap((choice) => {
          if (choice.finish_reason) finishes.set(choice.index, choice.finish_reason);
          if (choice.stop_sequence !== undefined) {
            stopSequences.set(choice.index, prepared.firewall ? prepared.firewall.restore(choice.stop_sequence) : choice.stop_sequence);
          }
          const delta = unmasker ? unmasker.delta(choice.index, choice.delta) : { ...choice.delta };
          if (delta.content === '' && opened.has(choice.index)) delete delta.content;
          if (!opened.has(choice.index)) {
            opened.add(choice.index);
            delta.role = 'assistant';
          }
          const empty = Object.keys(delta).length === 0;
          // Finish reasons are held back: the finish chunk must carry the usage, known only at the end.
          return empty ? [] : [{ index: choice.index, delta, finish_reason: null, ...(choice.logprobs ? { logprobs: choice.logprobs } : {}) }];
        });
        if (choices.length > 0) await sink.send(frame(choices));
        else if (chunk.progress && sink.progress) await sink.progress(frame([]));
        if (ctx.signal.aborted) break;
      }
    } catch (err) {
      if (err instanceof UpstreamError && err.consumerStalled && !ctx.signal.aborted) {
        // The client stopped reading for the provider's whole timeout: its doing, as a client that
        // leaves is. What was streamed is billed and traced as 499; it is told why the stream ended.
        await this.settleClosedStream(ctx, prepared, answerOf(accumulator.completion(ctx.requestId, created)));
        await sink.send({ error: { message: `the stream was ended: ${err.message}`, type: 'invalid_request_error', code: 'client_stalled' } });
        sink.end('failed');
        return;
      }
      if (!(ctx.signal.aborted || (err instanceof UpstreamError && err.kind === 'aborted'))) {
        // The trace names who served the part that was streamed, and what it was; it is not billed.
        const streamed = accumulator.completion(ctx.requestId, created);
        await this.fail(ctx, prepared, err, served.attempts, {
          model: candidate.model.id,
          provider: candidate.target.provider.id,
          output: streamed.choices,
          notes: served.notes,
          note: `the stream from ${candidate.target.provider.id} broke off after ${answerTokens(streamed, { messages: [] }).completion} tokens; not billed`,
        });
        await sink.send({
          error: {
            message: `the stream from ${candidate.target.provider.id} broke off: ${(err as Error).message}`,
            type: 'api_error',
            code: 'upstream_stream_error',
          },
        });
        sink.end('failed');
        return;
      }
    }
    if (ctx.signal.aborted) {
      // The client went away mid-stream, or the web process stopped the stream at shutdown: what the
      // provider streamed until then is billed, and the request is traced as 499 (503 when stopped);
      // a retry under its id runs anew, and its bill replaces this one. A stopped stream tells its
      // client, which would otherwise take the cut for a whole answer.
      const stopped = ctx.signal.reason instanceof ServerStopping;
      await this.settleClosedStream(ctx, prepared, answerOf(accumulator.completion(ctx.requestId, created)), stopped);
      if (!stopped) {
        sink.end('closed');
        return;
      }
      const { message, code, type } = serverStopping();
      await sink.send({ error: { message, type, code } });
      sink.end('failed');
      return;
    }

    const answer = answerOf(accumulator.completion(ctx.requestId, created));
    const held = answer.completion.choices.flatMap((choice) => {
      const delta = unmasker?.flush(choice.index);
      return delta ? [{ index: choice.index, delta, finish_reason: null }] : [];
    });
    if (held.length > 0) await sink.send(frame(held));
    let reply: ChatReply;
    try {
      reply = await this.settle(ctx, prepared, answer);
    } catch (err) {
      // The text went out, but the answer is not recorded (so not billed): the stream must not end
      // as if it had succeeded.
      await this.fail(ctx, prepared, err, served.attempts);
      // A database out of reach says so (code service_unavailable): the client may send it again.
      const told = answerableError(err);
      await sink.send({ error: { message: told?.message ?? 'the answer could not be recorded', type: 'api_error', code: told?.code ?? null } });
      sink.end('failed');
      return;
    }
    const usage = reply.body.usage as Usage;
    const indexes = answer.completion.choices.map((c) => c.index);
    for (const [position, index] of indexes.entries()) {
      const last = position === indexes.length - 1;
      await sink.send({
        ...frame([{ index, delta: {}, finish_reason: finishes.get(index) ?? 'stop', ...stopSequenceIn(stopSequences, index) }]),
        ...(last ? { usage, sources: prepared.retrieval.sources } : {}),
      });
    }
    if (includeUsage) await sink.send({ ...frame([]), usage });
    sink.end('done');
  }

  private async prepare(ctx: ChatContext, body: ChatCompletionRequest, started: number): Promise<Prepared | { replay: ChatReply }> {
    const { principal } = ctx;
    checkChatRules(body, ctx.fieldOf);
    checkMemoryScopes(principal, body);
    const firewallOn = body.firewall ?? principal.settings.firewallDefault;
    if (!firewallOn && !principal.nonEuAccepted) {
      // The default can be off only while the acceptance was recorded; it may have been withdrawn since.
      const off = body.firewall === false ? 'firewall: false' : "the workspace's firewall default (off)";
      const refusal = egressRefused(`${off} sends personal data unmasked and allows routing outside the EU; the organization has not recorded the non-EU routing acceptance`);
      // Not masked: nothing of what was sent is kept.
      await this.recordRefusal(ctx, { body, started, cacheStatus: 'BYPASS', retrieval: NO_RETRIEVAL, firewall: undefined }, refusal, null);
      throw refusal;
    }
    // The door's settings change the answer as the body's fields do, so a retry must repeat them.
    const hashed = ctx.anthropic || ctx.doorFields ? { ...body, anthropic: ctx.anthropic, door: ctx.doorFields } : body;
    const { claimed, hash, replay } = await claimOrReplay(this.deps.pool, { ...ctx, kind: 'chat', body: hashed as Record<string, unknown> });
    if (replay) {
      if (!principal.scopes.includes('memory.read') && heldMemory(replay.body)) throw memoryReadNeeded('replaying an answer that memory was retrieved into');
      return { replay: { ...replay, headers: { ...replay.headers, ...(await this.deps.gate.rateHeadersOf(principal)) } } };
    }
    const { request, parameters } = upstreamRequestOf(body);
    if (ctx.anthropic) Object.assign(request, ctx.anthropic);
    const firewall = firewallOn ? createFirewall({ language: body.firewall_language ?? principal.settings.firewallLanguage }) : undefined;
    if (firewall) ctx.withRestorer?.((text) => firewall.restore(text));
    let retrieval: Retrieval = NO_RETRIEVAL;
    let masked = false;
    try {
      const prompt = { messages: body.messages, tools: request.tools, response_format: request.response_format, stop: request.stop };
      Object.assign(request, await upstreamPrompt(firewall, prompt, { maxChars: this.deps.firewallMaxChars ?? DEFAULT_FIREWALL_MAX_CHARS }));
      masked = true;
      // Counted as it leaves, masked: after the firewall's own bound (413), which costs no tokenizing.
      if (!ctx.contextChecked) await refusePromptBeyondContext(this.deps.catalog, { ...body, messages: request.messages, tools: request.tools }, 'messages');
      // A key that may not read memory chats without it: what retrieval would add is facts and
      // documents that only memory.read may see.
      retrieval = principal.scopes.includes('memory.read')
        ? await retrieve(
            { ...this.deps, presence: this.presence },
            {
              workspaceId: principal.workspaceId,
              userRef: body.user ?? null,
              collection: body.collection,
              query: lastUserText(body.messages),
              // The question is embedded as the messages leave: masked unless this chat's firewall is off.
              policy: { ...principal.settings, firewallDefault: firewallOn, firewallLanguage: body.firewall_language ?? principal.settings.firewallLanguage },
            },
            ctx.signal,
          )
        : NO_RETRIEVAL;
      if (retrieval.message) {
        const knowledge = firewall ? firewall.mask(retrieval.message) : retrieval.message;
        request.messages = withKnowledge(request.messages, knowledge);
      }
      const imageField = firstImageField(body.messages);
      const plan = planRoute<ChatModel>(this.deps.catalog, this.deps.adapters, {
        ...chainOf(body),
        type: 'chat',
        ...(body.provider ? { provider: body.provider } : {}),
        parameters,
        reasoningEffort: body.reasoning_effort ?? null,
        thinking: thinkingAsked(body, ctx.anthropic),
        ...(Array.isArray(body.stop) ? { stopSequences: body.stop.length } : {}),
        ...(imageField !== undefined ? { imageField: ctx.fieldOf ? ctx.fieldOf(imageField) : imageField } : {}),
        nonEuAccepted: principal.nonEuAccepted,
        settings: principal.settings,
      });
      if (retrieval.note) plan.notes.push(retrieval.note);
      const cacheable = body.cache !== false && principal.settings.cacheEnabled && plan.candidates.length > 0;
      // A parameter no candidate takes changes no answer: the key leaves it out, so the same prompt
      // with and without it is one entry.
      const key = cacheable
        ? cacheKey(
            principal.workspaceId,
            plan.candidates.map((c) => `${c.model.id}@${c.target.provider.id}`),
            withoutParameters(request, droppedByEvery(plan.candidates)),
          )
        : undefined;
      // Nearly every request is a miss; the filter answers those without a round trip.
      const cached =
        key && this.deps.cacheKeys.mightContain(key) ? await findCachedResponse(this.deps.pool, principal.workspaceId, key) : undefined;
      const cacheStatus: CacheStatus = !cacheable ? 'BYPASS' : cached ? 'HIT' : 'MISS';
      // Limits are checked before a provider is called; a cache hit calls none and passes.
      let admission: Admission;
      if (cached) {
        const prompt = answerTokens(cached.completion, request).prompt;
        admission = await this.deps.gate.admitCacheHit(principal, this.serviceFee(prompt, firewall !== undefined, retrieval));
      } else {
        admission = await this.deps.gate.admit(principal, this.demandOf(plan, request, body, retrieval, firewall !== undefined, ChatService.reckoning(ctx.capField)));
      }
      countCacheResult(cacheStatus);
      if (firewall) countFirewallDetections(firewall.stats().counts);
      return {
        started,
        body,
        hash,
        plan,
        request,
        cacheStatus,
        cacheKey: key,
        cached,
        claimed,
        firewall,
        retrieval,
        admission,
      };
    } catch (err) {
      if (claimed) await releaseRequestId(this.deps.pool, principal.workspaceId, ctx.requestId);
      if (isRecordedRefusal(err)) {
        await this.recordRefusal(ctx, { body, started, cacheStatus: 'BYPASS', retrieval, firewall }, err, masked ? request : null);
      }
      throw err;
    }
  }

  /** A refusal (`isRecordedRefusal`), traced and audited. The prompt is kept only as it would have left: masked, or not at all. */
  private async recordRefusal(ctx: ChatContext, traced: TracedRequest, refusal: ApiError, input: UpstreamChatRequest | null): Promise<void> {
    // No model answered, but the privacy officer asks which one was asked for (a non-EU model?).
    const requested = chainOf(traced.body).chain;
    try {
      await this.deps.committer.write({
        trace: this.trace(ctx, traced, {
          status: refusal.status,
          model: null,
          provider: null,
          attempts: [],
          usage: undefined,
          input,
          output: { error: refusal.message },
          notes: [`refused before any provider was asked; the request named ${requested.join(', ') || 'no model'}`],
          createdAt: new Date().toISOString(),
        }),
        audit: this.audit(ctx, traced, refusal.status, null, null, { ...refusalDetails(refusal), requested }),
        ...subjectOf({ workspaceId: ctx.principal.workspaceId, requestId: ctx.requestId }, traced.body.user, traced.started),
      });
    } catch (recordErr) {
      ctx.log.error({ err: recordErr }, 'could not record a refused chat request');
    }
  }

  /** The service fees of a call: the firewall's per 1,000 prompt tokens scanned, and the retrieval's. */
  private serviceFee(prompt: number, firewallOn: boolean, retrieval: Retrieval): number {
    return (firewallOn ? (prompt * this.deps.catalog.services.firewallPer1kTokens) / 1000 : 0) + (retrieval.searched ? this.deps.catalog.services.retrievalPerCall : 0);
  }

  /** How a refusal words what a request reserves, in the terms of its door's cap. */
  private static reckoning(cap = 'max_tokens'): Demand['reckoning'] {
    return {
      tokens: `its prompt and its answer's cap: ${cap}, or the model's default cap when none is sent`,
      smaller: `send a smaller ${cap} or prompt`,
      credits: `its worst case at the dearest model of its chain: its prompt and answer cap, and without ${cap} the cap is the model's whole context; send ${cap} to reserve less`,
    };
  }

  /**
   * The most a request may use: its prompt's tokens plus the answer's cap (`max_completion_tokens`
   * or `max_tokens`, within what the model's context leaves) for each of its `n` choices, and that
   * at the dearest model of the chain, with the service fees. Without a cap, rate limits count the
   * model's default cap (catalogue `max_output_tokens`) as CONTRACT.md says, and budgets the worst
   * case: the whole context per choice, each token at the dearer of the model's two prices.
   */
  private demandOf(
    plan: RoutingPlan<ChatModel>,
    request: UpstreamChatRequest,
    body: ChatCompletionRequest,
    retrieval: Retrieval,
    firewallOn: boolean,
    reckoning: Demand['reckoning'],
  ): Demand {
    const retrievalFee = retrieval.searched ? this.deps.catalog.services.retrievalPerCall : 0;
    const firewallPerToken = firewallOn ? this.deps.catalog.services.firewallPer1kTokens / 1000 : 0;
    const answerCap = body.max_completion_tokens ?? body.max_tokens;
    const choices = body.n ?? 1;
    let prompt: number | undefined;
    const promptTokens = () => (prompt ??= countPromptTokens(request));
    // A prompt of megabytes is counted paced, when a limit needs it, rather than at once.
    const ready = isLongPrompt(request.messages)
      ? async () => {
          prompt = await countPromptTokensPaced(request);
        }
      : undefined;
    if (answerCap === undefined) {
      const models = plan.candidates.map((c) => c.model);
      return {
        ready,
        reckoning,
        tokens: () =>
          promptTokens() + choices * Math.max(0, ...models.map((m) => Math.min(m.maxOutputTokens, Math.max(0, m.contextLength - promptTokens())))),
        credits: () =>
          choices *
            Math.max(0, ...models.map((m) => (m.contextLength * Math.max(m.pricing.prompt, m.pricing.completion)) / 1000 + m.contextLength * firewallPerToken)) +
          retrievalFee,
      };
    }
    // A model answers no more than its context leaves after the prompt, whatever the cap asks.
    const answerWithin = (model: ChatModel) => Math.min(answerCap, Math.max(0, model.contextLength - promptTokens()));
    return {
      ready,
      reckoning,
      tokens: () => promptTokens() + choices * Math.max(0, ...plan.candidates.map((c) => answerWithin(c.model))),
      credits: () => {
        const services = this.serviceFee(promptTokens(), firewallOn, retrieval);
        return Math.max(0, ...plan.candidates.map((c) => creditsFor(c.model.pricing, { prompt: promptTokens(), completion: choices * answerWithin(c.model) }, { services }).total));
      },
    };
  }

  private fromCache(prepared: Prepared, cached: CachedResponse): Answer {
    const model = this.deps.catalog.models.get(cached.model) as ChatModel | undefined;
    const candidate = prepared.plan.candidates.find((c) => c.model.id === cached.model) ?? prepared.plan.candidates[0]!;
    return {
      completion: cached.completion,
      model: model ?? candidate.model,
      provider: cached.provider,
      attempts: [],
      notes: ['answered from the response cache'],
      sentUpstream: withoutParameters(prepared.request, candidate.dropped),
    };
  }

  private async callChain(
    prepared: Prepared,
    call: (candidate: Candidate<ChatModel>, request: UpstreamChatRequest) => Promise<UpstreamCompletion>,
  ): Promise<Answer> {
    const served = await firstThatAnswers(prepared.plan, (candidate) =>
      call(candidate, withoutParameters(prepared.request, candidate.dropped)),
    );
    // The adapter's notes go to the trace, not into the answer that is cached and replayed.
    const { notes: adapterNotes, ...completion } = served.result;
    return {
      completion,
      model: served.candidate.model,
      provider: served.candidate.target.provider.id,
      attempts: served.attempts,
      notes: adapterNotes ? [...prepared.plan.notes, ...adapterNotes] : prepared.plan.notes,
      sentUpstream: withoutParameters(prepared.request, served.candidate.dropped),
    };
  }

  private async callChainStreaming(prepared: Prepared, signal: AbortSignal, onAsk: (candidate: Candidate<ChatModel>, request: UpstreamChatRequest) => void) {
    const served = await firstThatAnswers(prepared.plan, (candidate) => {
      const request = withoutParameters(prepared.request, candidate.dropped);
      onAsk(candidate, request);
      return candidate.adapter.stream(candidate.target, request, signal);
    });
    const { candidate, attempts } = served;
    const adapterNotes = served.result.notes;
    const notes = adapterNotes ? [...prepared.plan.notes, ...adapterNotes] : prepared.plan.notes;
    return {
      candidate,
      attempts,
      notes,
      chunks: served.result.chunks,
      answerOf: (completion: UpstreamCompletion): Answer => ({
        completion,
        model: candidate.model,
        provider: candidate.target.provider.id,
        attempts,
        notes,
        sentUpstream: withoutParameters(prepared.request, candidate.dropped),
      }),
    };
  }

  /**
   * A stream the client closed, or the web process stopped: the part streamed is billed and traced
   * as 499 (503 when stopped), and nothing is kept for replay.
   */
  private async settleClosedStream(ctx: ChatContext, prepared: Prepared, answer: Answer, stopped = false): Promise<void> {
    try {
      if (prepared.claimed) await releaseRequestId(this.deps.pool, ctx.principal.workspaceId, ctx.requestId);
      await this.settle(ctx, prepared, answer, stopped ? 'server_stopped' : 'client_closed');
    } catch (err) {
      ctx.log.error({ err }, 'could not record a stream the client closed');
    }
  }

  /**
   * Usage, credits and the reply; durable (group commit) before it is returned. A stream the
   * client closed (`client_closed`) is billed for what was streamed and traced as 499, without a
   * replay, a thread append or a cache entry.
   */
  private async settle(
    ctx: ChatContext,
    prepared: Prepared,
    answer: Answer,
    outcome: 'answered' | 'client_closed' | 'server_stopped' = 'answered',
  ): Promise<ChatReply> {
    const closed = outcome !== 'answered';
    const { principal } = ctx;
    const hit = prepared.cacheStatus === 'HIT';
    const { body: asked } = prepared;
    const impossible = usageBeyondBounds(answer.completion, {
      contextLength: answer.model.contextLength,
      cap: asked.max_completion_tokens ?? asked.max_tokens ?? undefined,
      choices: asked.n ?? 1,
    });
    if (impossible) answer.notes.push(`${impossible}: counted with the tokenizer instead`);
    const counted = impossible ? { ...answer.completion, usage: undefined, promptUsage: undefined } : answer.completion;
    const { prompt, completion: completionTokens } = answerTokens(counted, answer.sentUpstream);
    const waived = prepared.admission.feeWaived;
    const services = waived ? 0 : this.serviceFee(prompt, prepared.firewall !== undefined, prepared.retrieval);
    if (waived) answer.notes.push(`the cache hit's fee was not billed: ${waived}`);
    // Tokens the provider read from or wrote to its prompt cache are billed at the cache prices.
    const details = (counted.usage ?? counted.promptUsage)?.prompt_tokens_details;
    const cached = hit ? prompt : Math.min(prompt, details?.cached_tokens ?? 0);
    const cacheWrite = hit ? 0 : Math.min(prompt - cached, details?.cache_write_tokens ?? 0);
    const now = new Date().toISOString();
    const lines = new UsageMeter()
      .add(answer.model, answer.provider, { prompt, completion: completionTokens, cached, cacheWrite })
      .lines(principal, 'chat', ctx.requestId, { services, cacheHit: hit, createdAt: now, partial: closed });
    const credits = lines[0]!.credits;
    const visible = prepared.firewall ? await restoreCompletion(prepared.firewall, answer.completion, contentKindOf(answer.sentUpstream)) : answer.completion;
    // A cache hit repeats the answer's counts, its reasoning's too, as it repeats its reasoning.
    const reasoningTokens = Math.min(completionTokens, answer.completion.usage?.completion_tokens_details?.reasoning_tokens ?? 0);
    const usage: Usage = {
      prompt_tokens: prompt,
      completion_tokens: completionTokens,
      total_tokens: prompt + completionTokens,
      prompt_tokens_details: { cached_tokens: cached, ...(cacheWrite > 0 ? { cache_write_tokens: cacheWrite } : {}) },
      ...(reasoningTokens > 0 ? { completion_tokens_details: { reasoning_tokens: reasoningTokens } } : {}),
      credits,
    };
    const body = {
      id: ctx.requestId,
      object: 'chat.completion',
      // The gateway's clock, as its streams have it: a provider's (another host's, or a fixed one) made
      // the same request answer with two times by the way it took.
      created: Math.floor(Date.now() / 1000),
      model: answer.model.id,
      choices: visible.choices.map((choice) => ({
        index: choice.index,
        message: {
          role: 'assistant',
          content: choice.message.content,
          // Always there, null when none, as OpenAI sends it: its SDK's type has it required.
          refusal: choice.message.refusal || null,
          ...(choice.message.tool_calls?.length ? { tool_calls: choice.message.tool_calls } : {}),
          ...(choice.message.reasoning_content ? { reasoning_content: choice.message.reasoning_content } : {}),
          ...(choice.message.thinking_blocks?.length ? { thinking_blocks: choice.message.thinking_blocks } : {}),
        },
        finish_reason: choice.finish_reason ?? 'stop',
        ...(choice.stop_sequence !== undefined ? { stop_sequence: choice.stop_sequence } : {}),
        logprobs: choice.logprobs ?? null,
      })),
      usage,
      sources: prepared.retrieval.sources,
    };
    const headers = { ...replyHeaders(answer.model.id, answer.provider, prepared.cacheStatus), ...prepared.admission.headers };
    const orders = ordersOf(visible);
    const subjects = answerSubjects(prepared);
    const status = outcome === 'server_stopped' ? serverStopping().status : closed ? clientGone().status : 200;
    const records: RequestRecords = {
      ...(closed ? {} : { request: settledRequest({ ...ctx, kind: 'chat' }, prepared.hash, { body, headers, ...orders }, subjects) }),
      usage: lines,
      spend: this.deps.gate.settle(prepared.admission, { tokens: prompt + completionTokens, credits: credits.total }),
      trace: this.trace(ctx, prepared, {
        status,
        model: answer.model.id,
        provider: answer.provider,
        attempts: answer.attempts,
        usage,
        input: answer.sentUpstream,
        output: answer.completion.choices,
        notes: closed ? [...answer.notes, closedNote(outcome, prepared.body.stream === true)] : answer.notes,
        createdAt: now,
      }),
      audit: this.audit(ctx, prepared, status, answer.model.id, answer.provider),
      ...subjectOf({ workspaceId: principal.workspaceId, requestId: ctx.requestId }, prepared.body.user, prepared.started),
      ...(prepared.body.thread && !closed ? { thread: threadAppend(ctx, prepared.body, visible, now) } : {}),
      ...(ctx.keepAnswer && !closed ? { storedResponse: ctx.keepAnswer({ body, ...orders }) } : {}),
      ...(!closed && prepared.cacheStatus === 'MISS' && prepared.cacheKey
        ? {
            cache: {
              workspace_id: principal.workspaceId,
              key: prepared.cacheKey,
              response: { completion: answer.completion, model: answer.model.id, provider: answer.provider },
              ttl_seconds: CACHE_TTL_SECONDS,
              end_user: subjects.endUser,
              fact_ids: subjects.factIds,
              document_ids: [...new Set(prepared.retrieval.sources.flatMap((source) => (source.type === 'chunk' && source.document_id ? [source.document_id] : [])))],
            },
          }
        : {}),
    };
    await this.deps.committer.write(records);
    if (records.cache) this.deps.cacheKeys.add(records.cache.key);
    return { body, headers, ...orders };
  }

  /** A failed request is traced and audited, not billed, and its id is freed for a retry. */
  private async fail(
    ctx: ChatContext,
    prepared: Prepared,
    err: unknown,
    servedAttempts?: Attempt[],
    brokenStream?: { model: string; provider: string; output: unknown; note: string; notes?: readonly string[] },
  ): Promise<void> {
    const { status, message, attempts } = failureOf(err, servedAttempts);
    this.deps.gate.release(prepared.admission);
    if (err instanceof RecordsRefused) ctx.log.warn({ reason: err.reason }, 'the answer could not be recorded; not billed');
    try {
      if (prepared.claimed) await releaseRequestId(this.deps.pool, ctx.principal.workspaceId, ctx.requestId);
      const now = new Date().toISOString();
      await this.deps.committer.write({
        trace: this.trace(ctx, prepared, {
          status,
          model: brokenStream?.model ?? null,
          provider: brokenStream?.provider ?? null,
          attempts,
          usage: undefined,
          input: prepared.request,
          output: brokenStream ? { error: message, streamed: brokenStream.output } : { error: message },
          notes: brokenStream ? [...(brokenStream.notes ?? prepared.plan.notes), brokenStream.note] : prepared.plan.notes,
          createdAt: now,
        }),
        audit: this.audit(ctx, prepared, status, brokenStream?.model ?? null, brokenStream?.provider ?? null),
        ...subjectOf({ workspaceId: ctx.principal.workspaceId, requestId: ctx.requestId }, prepared.body.user, prepared.started),
      });
    } catch (recordErr) {
      ctx.log.error({ err: recordErr }, 'could not record a failed chat request');
    }
  }

  private trace(
    ctx: ChatContext,
    prepared: TracedRequest,
    outcome: {
      status: number;
      model: string | null;
      provider: string | null;
      attempts: Attempt[];
      usage: Usage | undefined;
      input: unknown;
      output: unknown;
      notes: string[];
      createdAt: string;
    },
  ): TraceRecord {
    const { principal } = ctx;
    const body = prepared.body;
    return {
      workspace_id: principal.workspaceId,
      organization_id: principal.organizationId,
      id: ctx.requestId,
      kind: 'chat',
      key_id: principal.keyId,
      name: body.name ?? null,
      tags: body.tags ?? [],
      thread: body.thread ?? null,
      end_user: body.user ?? null,
      application: ctx.application,
      trace_id: ctx.traceContext?.traceId ?? null,
      parent_span_id: ctx.traceContext?.parentSpanId ?? null,
      model: outcome.model,
      provider: outcome.provider,
      attempts: outcome.attempts,
      status: outcome.status,
      latency_ms: performance.now() - prepared.started,
      prompt_tokens: outcome.usage?.prompt_tokens ?? 0,
      completion_tokens: outcome.usage?.completion_tokens ?? 0,
      cached_tokens: outcome.usage?.prompt_tokens_details.cached_tokens ?? 0,
      cache_write_tokens: outcome.usage?.prompt_tokens_details.cache_write_tokens ?? 0,
      credits: outcome.usage?.credits ?? { base: 0, services: 0, total: 0 },
      stream: body.stream === true,
      cache: prepared.cacheStatus,
      input: outcome.input,
      output: outcome.output,
      notes: ctx.notes ? [...outcome.notes, ...ctx.notes] : outcome.notes,
      // The passages' texts are in the (masked) input; the trace keeps which sources were used.
      sources: prepared.retrieval.sources.map(({ text: _text, ...source }) => source),
      firewall: prepared.firewall ? { ...prepared.firewall.stats(), language: body.firewall_language ?? principal.settings.firewallLanguage } : null,
      created_at: outcome.createdAt,
    };
  }

  private audit(ctx: ChatContext, prepared: Pick<Prepared, 'body'>, status: number, model: string | null, provider: string | null, extra: Record<string, unknown> = {}) {
    const { principal } = ctx;
    return auditEntry({
      ...actedBy(principal),
      action: 'chat.completion',
      target: ctx.requestId,
      details: {
        status,
        model,
        provider,
        ...(prepared.body.user ? { user: prepared.body.user } : {}),
        ...(ctx.application ? { application: ctx.application } : {}),
        ...extra,
      },
    });
  }
}

/** Whom the answer is about: the end-user the chat named and the facts retrieved into it. */
function answerSubjects(prepared: Prepared): AnswerSubjects {
  return {
    endUser: prepared.body.user ?? null,
    factIds: prepared.retrieval.sources.flatMap((source) => (source.type === 'fact' ? [source.id] : [])),
  };
}

const NO_RETRIEVAL: Retrieval = { sources: [], message: null, searched: false };

/**
 * How a request asks a provider to think: the Messages door's own `thinking` decides, else a
 * reasoning level does. A tool_choice that forces a tool asks for none: Anthropic refuses thinking
 * with it, and its adapter leaves thinking out.
 */
function thinkingAsked(body: ChatCompletionRequest, anthropic: AnthropicSettings | undefined): 'settings' | 'level' | undefined {
  const choice = body.tool_choice;
  if (choice === 'required' || (typeof choice === 'object' && choice !== null)) return undefined;
  if (anthropic?.thinking !== undefined) return anthropic.thinking.type !== 'disabled' ? 'settings' : undefined;
  const effort = body.reasoning_effort;
  return anthropic?.output_config === undefined && effort != null && effort !== 'none' ? 'level' : undefined;
}

/** The parameters every candidate of the chain drops. */
function droppedByEvery(candidates: readonly { dropped: readonly UpstreamParameter[] }[]): UpstreamParameter[] {
  const [first, ...rest] = candidates;
  return first ? first.dropped.filter((parameter) => rest.every((c) => c.dropped.includes(parameter))) : [];
}

/** Whether an answer kept for replay or a stored response carries what retrieval found (`sources`). */
export function heldMemory(answer: object): boolean {
  const sources = (answer as { sources?: unknown }).sources;
  return Array.isArray(sources) && sources.length > 0;
}

/**
 * An answer that memory was retrieved into shows it (`sources[].text`, and the reply made from
 * it): handing it to a key without memory.read would be retrieval by another way.
 */
export const memoryReadNeeded = (forWhat: string) => insufficientScope('memory.read', forWhat);

/**
 * `thread` writes to a thread, which needs memory.write. (Reading memory needs memory.read; a key
 * without it chats without memory, `collection` included, as the contract has it.)
 */
function checkMemoryScopes(principal: Principal, body: ChatCompletionRequest): void {
  if (body.thread !== undefined && !principal.scopes.includes('memory.write')) {
    throw insufficientScope('memory.write', 'appending to a thread (`thread`)');
  }
}

function replyHeaders(model: string, provider: string, cache: CacheStatus): Record<string, string> {
  return { 'X-Model': model, 'X-Provider': provider, 'X-Cache': cache };
}

/** The trace's note on a request its client left, or its web process stopped, before the answer ended. */
function closedNote(outcome: 'client_closed' | 'server_stopped', streamed: boolean): string {
  const who = outcome === 'server_stopped' ? 'the web process stopped it at shutdown' : 'the client closed it';
  return streamed
    ? `${who}; what was streamed until then is billed`
    : `${who} before the answer came; the prompt the provider read is billed, and nothing is kept`;
}

/** Thread messages: the request's messages after its last assistant message, then the reply. */
function threadAppend(ctx: ChatContext, body: ChatCompletionRequest, completion: UpstreamCompletion, now: string) {
  let lastAssistant = -1;
  body.messages.forEach((message, index) => {
    if (message.role === 'assistant') lastAssistant = index;
  });
  const reply = completion.choices[0]?.message;
  return {
    workspace_id: ctx.principal.workspaceId,
    organization_id: ctx.principal.organizationId,
    thread: body.thread!,
    request_id: ctx.requestId,
    created_at: now,
    end_user: body.user ?? null,
    messages: [
      ...body.messages.slice(lastAssistant + 1).map((m) => ({ role: m.role, content: m.content ?? null })),
      ...(reply
        ? [{ role: 'assistant', content: reply.tool_calls?.length ? { content: reply.content, tool_calls: reply.tool_calls } : reply.content }]
        : []),
    ],
  };
}

/** `{orders}` of the choices a stream gave in an unusual order (ChatReply.orders), or nothing. */
function ordersOf(completion: UpstreamCompletion): { orders?: Record<number, AnswerRun[]> } {
  const unusual = completion.choices.filter((choice) => choice.message.order);
  return unusual.length > 0 ? { orders: Object.fromEntries(unusual.map((choice) => [choice.index, choice.message.order!])) } : {};
}

/** A stored or cached JSON answer, sent in the stream form the request asked for, in the order it first streamed. */
async function replayAsStream(sink: SseSink, reply: ChatReply, includeUsage: boolean): Promise<void> {
  const body = reply.body as { id: string; created: number; model: string; choices: UpstreamCompletion['choices']; usage: Usage; sources: unknown[] };
  // A cache hit's prompt was all read from the cache: as its answer's usage says.
  sink.open(reply.headers, () => Promise.resolve({ prompt_tokens: body.usage.prompt_tokens, prompt_tokens_details: body.usage.prompt_tokens_details }));
  const frame = (choices: UpstreamChunk['choices']) => ({ id: body.id, object: 'chat.completion.chunk', created: body.created, model: body.model, choices });
  const choices = body.choices.map((choice) => {
    const order = reply.orders?.[choice.index];
    return order ? { ...choice, message: { ...choice.message, order } } : choice;
  });
  const chunks = chunksOf({ id: body.id, created: body.created, choices });
  for (const [position, chunk] of chunks.entries()) {
    const last = position === chunks.length - 1;
    await sink.send({ ...frame(chunk.choices), ...(last ? { usage: body.usage, sources: body.sources } : {}) });
  }
  if (includeUsage) await sink.send({ ...frame([]), usage: body.usage });
  sink.end('done');
}

function textOf(content: ChatCompletionRequest['messages'][number]['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.flatMap((part) => (part.type === 'text' && part.text ? [part.text] : [])).join('\n');
}

/** What retrieval searches for: the last thing the end-user said. */
function lastUserText(messages: ChatCompletionRequest['messages']): string {
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    if (messages[i]!.role === 'user') return textOf(messages[i]!.content);
  }
  return '';
}

/** The knowledge goes in as one system message, after the caller's own leading instructions. */
function withKnowledge(messages: UpstreamChatRequest['messages'], knowledge: string): UpstreamChatRequest['messages'] {
  let at = 0;
  while (at < messages.length && (messages[at]!.role === 'system' || messages[at]!.role === 'developer')) at += 1;
  return [...messages.slice(0, at), asRetrievedKnowledge({ role: 'system', content: knowledge }), ...messages.slice(at)];
}

/** `{stop_sequence}` for a choice whose provider named the stop sequence that ended it. */
function stopSequenceIn(stopSequences: ReadonlyMap<number, string>, index: number): { stop_sequence?: string } {
  const sequence = stopSequences.get(index);
  return sequence === undefined ? {} : { stop_sequence: sequence };
}
