// A stub of Anthropic's Messages API: a real HTTP server on 127.0.0.1 answering
// POST /v1/messages as JSON or as Server-Sent Events (when the request has `stream: true`), in
// Anthropic's event order. Scripted like stubProvider.ts:
//
//   const stub = await startMessagesStub();
//   stub.script({ type: 'answer', blocks: [{ type: 'tool_use', id: 'toolu_1', name: 'f', input: { a: 1 } }], stopReason: 'tool_use' });
//   stub.script({ type: 'status', status: 529 });
//   stub.requests[0].body.system; stub.requests[0].headers['x-api-key'];
//
// Unscripted requests get a text answer `echo: <last user text>` with usage. Like Anthropic, it
// refuses (400) a request with thinking on whose final assistant turn does not start with a
// thinking block.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type StubBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'thinking'; thinking: string; signature: string };

export interface MessagesStubAnswer {
  type: 'answer';
  blocks?: StubBlock[];
  stopReason?: string;
  /** With stopReason `stop_sequence`: the sequence that stopped it. */
  stopSequence?: string;
  usage?: { input_tokens: number; output_tokens: number; cache_read_input_tokens?: number; cache_creation_input_tokens?: number };
  /** Streams: tool input JSON is sent in pieces of this many characters (default 5). */
  jsonPiece?: number;
  /** Streams: nothing more after the first text delta, until the gateway goes away (a client that closes mid-answer). */
  stallAfterFirstDelta?: boolean;
  /** Streams: a thinking block begins and its first delta comes, then nothing more until the gateway goes away (a client that closes while the model thinks). */
  stallInThinking?: boolean;
}

export interface MessagesStubStatus {
  type: 'status';
  status: number;
  errorType?: string;
}

/** Streams: message_start and the first block's start, then an `error` event (overloaded) and the end. */
export interface MessagesStubErrorAfterStart {
  type: 'errorAfterStart';
}

export type MessagesStubBehaviour = MessagesStubAnswer | MessagesStubStatus | MessagesStubErrorAfterStart;

export interface MessagesStubRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
}

export interface MessagesStub {
  /** Base URL for a catalogue provider of kind anthropic, e.g. `http://127.0.0.1:41234/v1`. */
  readonly url: string;
  readonly requests: MessagesStubRequest[];
  /** How many streams stalled as scripted (stallAfterFirstDelta, stallInThinking) so far. */
  readonly stalls: number;
  script(...behaviours: MessagesStubBehaviour[]): MessagesStub;
  reset(): void;
  close(): Promise<void>;
}

function lastUserText(body: any): string {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role !== 'user') continue;
    if (typeof m.content === 'string') return m.content;
    const text = (m.content as any[]).filter((b) => b.type === 'text').map((b) => b.text).join(' ');
    if (text) return text;
  }
  return '';
}

const THINKING = new Set(['thinking', 'redacted_thinking']);

/** Anthropic's refusal of thinking in a tool loop that began without it, or undefined. */
function thinkingRefusal(body: any): string | undefined {
  const type = body?.thinking?.type;
  if (type !== 'enabled' && type !== 'adaptive') return undefined;
  const messages: any[] = Array.isArray(body.messages) ? body.messages : [];
  let first: number | undefined;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    const blocks: any[] = Array.isArray(m.content) ? m.content : [{ type: 'text' }];
    if (m.role === 'user' && !blocks.some((b) => b.type === 'tool_result')) break;
    if (m.role === 'assistant') first = i;
  }
  if (first === undefined) return undefined;
  const opening = Array.isArray(messages[first].content) ? messages[first].content[0]?.type : 'text';
  if (THINKING.has(opening)) return undefined;
  return `messages.${first}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${opening}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block`;
}

export async function startMessagesStub(): Promise<MessagesStub> {
  const requests: MessagesStubRequest[] = [];
  let stalls = 0;
  const queue: MessagesStubBehaviour[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (raw += c));
    req.on('end', () => {
      const body = raw ? JSON.parse(raw) : {};
      requests.push({ path: req.url ?? '', headers: req.headers, body });
      const refusal = thinkingRefusal(body);
      if (refusal) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: refusal } }));
        return;
      }
      const behaviour = queue.shift() ?? { type: 'answer' };
      if (behaviour.type === 'status') {
        res.writeHead(behaviour.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type: 'error', error: { type: behaviour.errorType ?? 'api_error', message: `stub error ${behaviour.status}` } }));
        return;
      }
      const id = `msg_stub_${requests.length}`;
      const model = body.model ?? 'stub';
      if (behaviour.type === 'errorAfterStart') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const send = (type: string, data: object) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
        send('message_start', { message: { id, type: 'message', role: 'assistant', content: [], model, usage: { input_tokens: 10, output_tokens: 1 } } });
        send('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
        send('error', { error: { type: 'overloaded_error', message: 'Overloaded' } });
        res.end();
        return;
      }
      const blocks: StubBlock[] = behaviour.blocks ?? [{ type: 'text', text: `echo: ${lastUserText(body)}` }];
      const stopReason = behaviour.stopReason ?? (blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn');
      const usage = behaviour.usage ?? { input_tokens: 12, output_tokens: 7 };
      if (!body.stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id, type: 'message', role: 'assistant', content: blocks, model, stop_reason: stopReason, stop_sequence: behaviour.stopSequence ?? null, usage }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const send = (type: string, data: object) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
      const { output_tokens: output, ...input } = usage;
      send('message_start', { message: { id, type: 'message', role: 'assistant', content: [], model, stop_reason: null, stop_sequence: null, usage: { ...input, output_tokens: 1 } } });
      send('ping', {});
      for (const [index, block] of blocks.entries()) {
        if (block.type === 'text') {
          send('content_block_start', { index, content_block: { type: 'text', text: '' } });
          for (const word of block.text.split(/(?<= )/)) {
            send('content_block_delta', { index, delta: { type: 'text_delta', text: word } });
            if (behaviour.stallAfterFirstDelta) return void stalls++;
          }
        } else if (block.type === 'tool_use') {
          send('content_block_start', { index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
          const json = JSON.stringify(block.input);
          const piece = behaviour.jsonPiece ?? 5;
          for (let i = 0; i < json.length; i += piece) send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: json.slice(i, i + piece) } });
        } else {
          send('content_block_start', { index, content_block: { type: 'thinking', thinking: '' } });
          send('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: block.thinking } });
          if (behaviour.stallInThinking) return void stalls++;
          send('content_block_delta', { index, delta: { type: 'signature_delta', signature: block.signature } });
        }
        send('content_block_stop', { index });
      }
      send('message_delta', { delta: { stop_reason: stopReason, stop_sequence: behaviour.stopSequence ?? null }, usage: { output_tokens: output } });
      send('message_stop', {});
      res.end();
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const stub: MessagesStub = {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    get stalls() {
      return stalls;
    },
    script(...behaviours) {
      queue.push(...behaviours);
      return stub;
    },
    reset() {
      requests.length = 0;
      queue.length = 0;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return stub;
}
