// The zero-delay upstream for bench/gateway.ts, run in its own process (forked with an IPC
// channel): POST /v1/chat/completions answers at once with a fixed, small OpenAI chat completion
// (usage included), keep-alive on. It tells its parent the port, and how many completions it has
// served when asked, so the bench can check that a proxy really went upstream.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export const STUB_COMPLETION = {
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created: 1_767_225_600,
  model: 'stub-chat',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Hello from the stub.' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 },
};

const body = Buffer.from(JSON.stringify(STUB_COMPLETION));
const headers = { 'content-type': 'application/json', 'content-length': String(body.length) };
const notFound = Buffer.from('{"error":{"message":"not found","type":"invalid_request_error"}}');
let served = 0;

const server = createServer({ keepAlive: true }, (req, res) => {
  const ok = req.method === 'POST' && (req.url === '/v1/chat/completions' || req.url === '/chat/completions');
  // The request body is read (and dropped) before answering, as a real server would.
  req.on('data', () => undefined);
  req.on('end', () => {
    if (ok) {
      served++;
      res.writeHead(200, headers);
      res.end(body);
    } else {
      res.writeHead(404, { 'content-type': 'application/json', 'content-length': String(notFound.length) });
      res.end(notFound);
    }
  });
});
server.keepAliveTimeout = 65_000;
server.headersTimeout = 66_000;

server.listen(0, '127.0.0.1', () => {
  process.send?.({ type: 'ready', port: (server.address() as AddressInfo).port });
});

process.on('message', (msg: { type?: string }) => {
  if (msg?.type === 'count') process.send?.({ type: 'count', served });
});
// The parent went away (crash, kill -9): do not linger.
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
