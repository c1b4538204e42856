// The floor for any proxy: a bare node:http server that reads the request body, forwards it to
// the stub through an undici Pool (keep-alive, 64 sockets, like the gateway's provider pools) and
// pipes the answer back. No auth, no validation, no metering, no logging. Forked by
// bench/gateway.ts with UPSTREAM (the stub's origin) in its environment.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream/promises';
import { Pool } from 'undici';

const upstream = process.env.UPSTREAM;
if (!upstream) throw new Error('UPSTREAM is not set');
const pool = new Pool(upstream, { connections: 64, pipelining: 1, keepAliveTimeout: 30_000 });

const server = createServer({ keepAlive: true }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    forward(req.url ?? '/', Buffer.concat(chunks), req.headers['content-type'] ?? 'application/json', res).catch((err: Error) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`passthrough: ${err.message}`);
    });
  });
});
server.keepAliveTimeout = 65_000;
server.headersTimeout = 66_000;

async function forward(path: string, body: Buffer, contentType: string, res: import('node:http').ServerResponse): Promise<void> {
  const answer = await pool.request({ path, method: 'POST', headers: { 'content-type': contentType }, body });
  const headers: Record<string, string> = { 'content-type': String(answer.headers['content-type'] ?? 'application/json') };
  const length = answer.headers['content-length'];
  if (length !== undefined) headers['content-length'] = String(length);
  res.writeHead(answer.statusCode, headers);
  await pipeline(answer.body, res);
}

server.listen(0, '127.0.0.1', () => {
  process.send?.({ type: 'ready', port: (server.address() as AddressInfo).port });
});

const quit = () => {
  server.close();
  void pool.destroy().finally(() => process.exit(0));
  setTimeout(() => process.exit(0), 500).unref();
};
process.on('disconnect', quit);
process.on('SIGTERM', quit);
process.on('SIGINT', quit);
