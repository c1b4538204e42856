// A stub OpenAI-compatible provider: a real HTTP server on 127.0.0.1 that answers
// POST /v1/chat/completions (JSON or SSE) and POST /v1/embeddings, and can be scripted to fail in
// every way a real provider does. For adapter tests and gateway tests alike.
//
//   const stub = await startStubProvider();
//   const provider = { id: 'stub', region: 'eu', kind: 'openai', baseUrl: stub.url, timeoutMs: 500, available: true };
//   stub.script({ type: 'status', status: 503, retryAfter: '2' });   // the next request gets a 503…
//   stub.script({ type: 'answer', content: 'Bonjour' });             // …the one after answers "Bonjour"
//   …                                                                // later ones answer normally
//   stub.requests[0].body.model;  stub.connections;  await stub.close();
//
// Unscripted requests are answered normally: a chat completion whose content is
// `echo: <last user message>` (as JSON, or as SSE when the request has `stream: true`), with
// usage; an embeddings request with deterministic vectors (see stubEmbedding()).
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A normal answer, shaped by the request: JSON completion, SSE stream, or embeddings. */
export interface StubAnswer {
  type: 'answer';
  /** The assistant's text. Default `echo: <last user message>`. */
  content?: string;
  /** Streams only: the content deltas, one SSE event each. Default: `content` split after each space. */
  chunks?: string[];
  /**
   * Reasoning before the answer, in the provider's field: `reasoning_content` (DeepSeek, vLLM; the
   * default), `reasoning` (OpenRouter) or Mistral's `thinking` content parts. Streams send it in
   * deltas (split after each space) before the content; usage then reports its words as reasoning tokens.
   */
  reasoning?: string;
  reasoningAs?: 'reasoning_content' | 'reasoning' | 'mistral';
  /** A tool call answer: sent instead of content (content null), finish_reason `tool_calls`. */
  toolCalls?: { id?: string; name: string; arguments: string }[];
  /** Default `stop` (`tool_calls` with toolCalls). */
  finishReason?: string;
  /** vLLM's `stop_reason` on the choice: the stop string that ended it. */
  stopReason?: string;
  /**
   * Usage reporting. 'auto' (default): on JSON answers always; on streams as a final
   * `choices: []` chunk when the request asked with stream_options.include_usage (OpenAI's way).
   * 'finish': on streams, on the finish chunk whether asked or not (Mistral's way).
   * false: never.
   */
  usage?: 'auto' | 'finish' | false;
  /** Streams: end with `data: [DONE]` (default true). false ends the body cleanly without it. */
  done?: boolean;
  /** Streams: pause between events. */
  chunkDelayMs?: number;
  /** Embeddings: vector size (default the stub's `dimensions`, or the request's `dimensions`). */
  dimensions?: number;
  /** Embeddings: return the items in reverse order (each keeps its `index`). */
  reverse?: boolean;
  /** Embeddings: return only this many items (to provoke a count mismatch). */
  count?: number;
  /** Wait this long before answering at all. */
  delayMs?: number;
}

/** An HTTP error with an OpenAI-style body `{error: {message, type, code}}` (or `body` verbatim). */
export interface StubStatus {
  type: 'status';
  status: number;
  /** Default `stub error <status>`. */
  message?: string;
  retryAfter?: string;
  /** Sent as it is instead of the OpenAI-style body (a string, or an object as JSON). */
  body?: string | object;
  delayMs?: number;
}

/** Accepts the request and never sends a byte: the client's header timeout must fire. */
export interface StubHang {
  type: 'hang';
}

/** Starts an SSE stream, sends `afterChunks` events of a normal answer, then destroys the socket. */
export interface StubCutMidStream {
  type: 'cutMidStream';
  /** Events (chunks) sent before the cut: default 2 (the role chunk and one content chunk); 0 cuts right after the headers. */
  afterChunks?: number;
  chunkDelayMs?: number;
  delayMs?: number;
}

/**
 * Sends exactly this: a body, or pieces written one by one, chunkDelayMs apart. Pieces may be
 * bytes, to split a UTF-8 character or a \r\n between two writes.
 */
export interface StubRaw {
  type: 'raw';
  status?: number;
  /** Default `{'content-type': 'application/json'}`. */
  headers?: Record<string, string>;
  body: string | (string | Uint8Array)[];
  chunkDelayMs?: number;
  /** Stop after the body without ending the response (then hangs like `hang`). */
  keepOpen?: boolean;
  delayMs?: number;
}

/** Destroys the socket as soon as the request has arrived (the client sees a reset). */
export interface StubReset {
  type: 'reset';
}

export type StubBehaviour = StubAnswer | StubStatus | StubHang | StubCutMidStream | StubRaw | StubReset;

export interface StubRequest {
  method: string;
  /** e.g. `/v1/chat/completions` (with any query string). */
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (or the raw text when it was not JSON). */
  body: any;
  /** Which TCP connection carried it: 1 for the first the stub accepted, 2 for the next, … */
  connection: number;
  /** The behaviour that answered it. */
  behaviour: StubBehaviour;
  /** Set when the client went away before the response was complete (abort, timeout, early break). */
  closedEarly: boolean;
  /** performance.now() when the whole request had arrived. */
  receivedAt: number;
}

export interface StubProviderOptions {
  /** Default embedding size. Default 8. */
  dimensions?: number;
  /** The `model` reported in answers when the request has none. Default `stub-model`. */
  model?: string;
  /** What requests get when nothing is scripted for them. Default a normal answer; `{type: 'hang'}` makes a provider that always hangs. */
  unscripted?: StubBehaviour;
}

export interface StubProvider {
  /** Base URL for a catalogue provider, e.g. `http://127.0.0.1:41234/v1`. */
  readonly url: string;
  /** The requests received so far, in arrival order. */
  readonly requests: StubRequest[];
  /** TCP connections accepted so far. */
  readonly connections: number;
  /** TCP connections open right now. */
  readonly openConnections: number;
  /** Queues behaviours for the next requests, in order; unscripted requests are answered normally. */
  script(...behaviours: StubBehaviour[]): StubProvider;
  /** Forgets the requests and the script (not the connection count). */
  reset(): void;
  /** Resolves once `condition()` holds; rejects after timeoutMs (default 2,000). */
  waitFor(condition: () => boolean, timeoutMs?: number): Promise<void>;
  /** Destroys every connection and stops the server. */
  close(): Promise<void>;
}

/** The deterministic vector the stub returns for `text` (values in [-1, 1]). */
export function stubEmbedding(text: string, dimensions: number): number[] {
  const v = new Array<number>(dimensions);
  for (let j = 0; j < dimensions; j++) {
    let h = 0x811c9dc5 ^ j;
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
    h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
    v[j] = Math.round((((h >>> 0) / 0xffffffff) * 2 - 1) * 1e6) / 1e6;
  }
  return v;
}

/** A base URL where nothing listens: connecting is refused. */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}

export async function startStubProvider(options: StubProviderOptions = {}): Promise<StubProvider> {
  const dimensions = options.dimensions ?? 8;
  const defaultModel = options.model ?? 'stub-model';
  const queue: StubBehaviour[] = [];
  const requests: StubRequest[] = [];
  const sockets = new Set<Socket>();
  const socketIds = new WeakMap<Socket, number>();
  const timers = new Set<NodeJS.Timeout>();
  let accepted = 0;

  const later = (ms: number | undefined, fn: () => void): void => {
    if (!ms) return fn();
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };

  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const text = Buffer.concat(parts).toString('utf8');
      let body: unknown = text;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        // kept as text
      }
      const behaviour = queue.shift() ?? options.unscripted ?? { type: 'answer' };
      const record: StubRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body,
        connection: socketIds.get(req.socket) ?? 0,
        behaviour,
        closedEarly: false,
        receivedAt: performance.now(),
      };
      requests.push(record);
      res.on('close', () => {
        if (!res.writableFinished) record.closedEarly = true;
      });
      respond(req, res, record, behaviour);
    });
  });
  server.keepAliveTimeout = 30_000;
  server.on('connection', (socket: Socket) => {
    accepted++;
    socketIds.set(socket, accepted);
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  function respond(req: IncomingMessage, res: ServerResponse, record: StubRequest, b: StubBehaviour): void {
    switch (b.type) {
      case 'hang':
        return;
      case 'reset':
        req.socket.destroy();
        return;
      case 'status':
        return later(b.delayMs, () => {
          if (res.destroyed) return;
          const headers: Record<string, string> = { 'content-type': 'application/json' };
          if (b.retryAfter !== undefined) headers['retry-after'] = b.retryAfter;
          const body =
            b.body === undefined
              ? JSON.stringify({ error: { message: b.message ?? `stub error ${b.status}`, type: 'stub_error', code: null } })
              : typeof b.body === 'string'
                ? b.body
                : JSON.stringify(b.body);
          res.writeHead(b.status, headers).end(body);
        });
      case 'raw':
        return later(b.delayMs, () => {
          if (res.destroyed) return;
          res.writeHead(b.status ?? 200, b.headers ?? { 'content-type': 'application/json' });
          const pieces = typeof b.body === 'string' ? [b.body] : b.body;
          writePieces(res, pieces, b.chunkDelayMs, () => {
            if (!b.keepOpen) res.end();
          });
        });
      case 'cutMidStream':
        return later(b.delayMs, () => {
          if (res.destroyed) return;
          const events = streamEvents(record, { type: 'answer' }).slice(0, b.afterChunks ?? 2);
          res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
          res.flushHeaders();
          writePieces(res, events, b.chunkDelayMs, () => {
            // Give the kernel a moment to send what was written, then cut.
            later(10, () => req.socket.destroy());
          });
        });
      case 'answer':
        return later(b.delayMs, () => {
          if (res.destroyed) return;
          if (record.path.split('?')[0]!.endsWith('/embeddings')) return answerEmbeddings(res, record, b);
          if (isRecord(record.body) && record.body.stream === true) {
            res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
            writePieces(res, streamEvents(record, b), b.chunkDelayMs, () => res.end());
            return;
          }
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion(record, b)));
        });
    }
  }

  function writePieces(res: ServerResponse, pieces: readonly (string | Uint8Array)[], delayMs: number | undefined, done: () => void): void {
    if (!delayMs) {
      // In a loop: one call per piece overflowed the stack on a long answer (a 60,000-word echo).
      for (const piece of pieces) {
        if (res.destroyed) return;
        res.write(piece);
      }
      return done();
    }
    let i = 0;
    const step = (): void => {
      if (res.destroyed) return;
      if (i >= pieces.length) return done();
      res.write(pieces[i++]!);
      later(delayMs, step);
    };
    step();
  }

  function lastUserText(body: unknown): string {
    if (!isRecord(body) || !Array.isArray(body.messages)) return '';
    for (let i = body.messages.length - 1; i >= 0; i--) {
      const m: unknown = body.messages[i];
      if (isRecord(m) && m.role === 'user') return textOf(m.content);
    }
    return '';
  }

  function promptTokens(body: unknown): number {
    if (!isRecord(body) || !Array.isArray(body.messages)) return 0;
    let n = 0;
    for (const m of body.messages) if (isRecord(m)) n += words(textOf(m.content));
    return n;
  }

  function modelOf(body: unknown): string {
    return isRecord(body) && typeof body.model === 'string' ? body.model : defaultModel;
  }

  function contentOf(record: StubRequest, b: StubAnswer): string {
    return b.content ?? `echo: ${lastUserText(record.body)}`;
  }

  function usageOf(record: StubRequest, content: string, reasoning?: string): Record<string, unknown> {
    const prompt = promptTokens(record.body);
    const reasoningTokens = reasoning ? words(reasoning) : 0;
    const completionTokens = words(content) + reasoningTokens;
    return {
      prompt_tokens: prompt,
      completion_tokens: completionTokens,
      total_tokens: prompt + completionTokens,
      ...(reasoningTokens > 0 ? { completion_tokens_details: { reasoning_tokens: reasoningTokens } } : {}),
    };
  }

  /** `reasoning` as the provider's field(s) on a message or delta whose text content is `content`. */
  function withReasoning(b: StubAnswer, reasoning: string, content: string | null): Record<string, unknown> {
    switch (b.reasoningAs ?? 'reasoning_content') {
      case 'reasoning':
        return { reasoning, content };
      case 'mistral':
        return { content: [{ type: 'thinking', thinking: [{ type: 'text', text: reasoning }] }, ...(content ? [{ type: 'text', text: content }] : [])] };
      default:
        return { reasoning_content: reasoning, content };
    }
  }

  function completion(record: StubRequest, b: StubAnswer): object {
    const content = contentOf(record, b);
    const text = b.toolCalls ? null : content;
    const message: Record<string, unknown> = { role: 'assistant', ...(b.reasoning ? withReasoning(b, b.reasoning, text) : { content: text }) };
    if (b.toolCalls) {
      message.tool_calls = b.toolCalls.map((t, i) => ({
        id: t.id ?? `call_${i}`,
        type: 'function',
        function: { name: t.name, arguments: t.arguments },
      }));
    }
    const out: Record<string, unknown> = {
      id: `chatcmpl-stub-${requests.length}`,
      object: 'chat.completion',
      created: 1_700_000_000,
      model: modelOf(record.body),
      choices: [{ index: 0, message, finish_reason: b.finishReason ?? (b.toolCalls ? 'tool_calls' : 'stop'), ...(b.stopReason ? { stop_reason: b.stopReason } : {}) }],
    };
    if (b.usage !== false) out.usage = usageOf(record, b.toolCalls ? '' : content, b.reasoning);
    return out;
  }

  function streamEvents(record: StubRequest, b: StubAnswer): string[] {
    const content = contentOf(record, b);
    const base = { id: `chatcmpl-stub-${requests.length}`, object: 'chat.completion.chunk', created: 1_700_000_000, model: modelOf(record.body) };
    const event = (choices: unknown[], extra: Record<string, unknown> = {}): string =>
      `data: ${JSON.stringify({ ...base, choices, ...extra })}\n\n`;
    const events = [event([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }])];
    for (const piece of b.reasoning?.match(/[^ ]* ?/g)!.filter((s) => s !== '') ?? []) {
      events.push(event([{ index: 0, delta: withReasoning(b, piece, null), finish_reason: null }]));
    }
    if (b.toolCalls) {
      b.toolCalls.forEach((t, i) => {
        events.push(
          event([
            {
              index: 0,
              delta: { tool_calls: [{ index: i, id: t.id ?? `call_${i}`, type: 'function', function: { name: t.name, arguments: '' } }] },
              finish_reason: null,
            },
          ]),
          event([{ index: 0, delta: { tool_calls: [{ index: i, function: { arguments: t.arguments } }] }, finish_reason: null }]),
        );
      });
    } else {
      const deltas = b.chunks ?? content.match(/[^ ]* ?/g)!.filter((s) => s !== '');
      for (const d of deltas) events.push(event([{ index: 0, delta: { content: d }, finish_reason: null }]));
    }
    const usage = usageOf(record, b.toolCalls ? '' : content, b.reasoning);
    const finish = [{ index: 0, delta: {}, finish_reason: b.finishReason ?? (b.toolCalls ? 'tool_calls' : 'stop'), ...(b.stopReason ? { stop_reason: b.stopReason } : {}) }];
    const usageMode = b.usage ?? 'auto';
    events.push(event(finish, usageMode === 'finish' ? { usage } : {}));
    const asked = isRecord(record.body) && isRecord(record.body.stream_options) && record.body.stream_options.include_usage === true;
    if (usageMode === 'auto' && asked) events.push(event([], { usage }));
    if (b.done !== false) events.push('data: [DONE]\n\n');
    return events;
  }

  function answerEmbeddings(res: ServerResponse, record: StubRequest, b: StubAnswer): void {
    const body = isRecord(record.body) ? record.body : {};
    const inputs = typeof body.input === 'string' ? [body.input] : Array.isArray(body.input) ? (body.input as unknown[]).map(String) : [];
    const dims =
      b.dimensions ??
      (typeof body.dimensions === 'number' ? body.dimensions : typeof body.output_dimension === 'number' ? body.output_dimension : dimensions);
    let data = inputs.map((text, index) => ({ object: 'embedding', index, embedding: stubEmbedding(text, dims) }));
    if (b.reverse) data = data.reverse();
    if (b.count !== undefined) data = data.slice(0, b.count);
    const tokens = inputs.reduce((n, t) => n + words(t), 0);
    const out: Record<string, unknown> = { object: 'list', data, model: modelOf(body) };
    if (b.usage !== false) out.usage = { prompt_tokens: tokens, total_tokens: tokens };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(out));
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const stub: StubProvider = {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    get connections() {
      return accepted;
    },
    get openConnections() {
      return sockets.size;
    },
    script(...behaviours) {
      queue.push(...behaviours);
      return stub;
    },
    reset() {
      queue.length = 0;
      requests.length = 0;
    },
    waitFor(condition, timeoutMs = 2_000) {
      return new Promise((resolve, reject) => {
        const started = Date.now();
        const poll = (): void => {
          if (condition()) return resolve();
          if (Date.now() - started > timeoutMs) return reject(new Error(`stub: condition not met within ${timeoutMs} ms`));
          setTimeout(poll, 5);
        };
        poll();
      });
    },
    async close() {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
  return stub;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((p: unknown) => (isRecord(p) && p.type === 'text' && typeof p.text === 'string' ? p.text : ''))
      .join('');
  }
  return '';
}

function words(text: string): number {
  const t = text.trim();
  return t === '' ? 0 : t.split(/\s+/).length;
}
