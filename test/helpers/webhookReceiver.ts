import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestApp, type TestApp } from './app.js';

// A webhook receiver on loopback: it records every request (headers and raw body) and answers
// each one as scripted, in order; once the script is spent, 200.

export type ReceiverAnswer =
  | { type: 'status'; status: number; body?: string; headers?: Record<string, string> }
  /** Never answers (until the receiver closes). */
  | { type: 'hang' };

export interface ReceivedWebhook {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** Answers for the next requests, in order. */
  script(...answers: ReceiverAnswer[]): void;
  /** The received webhooks whose body has this `type`. */
  ofType(type: string): ReceivedWebhook[];
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const answers: ReceiverAnswer[] = [];
  const hanging = new Set<ServerResponse>();
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers[name] = value;
      received.push({ path: req.url ?? '/', headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      const answer = answers.shift() ?? { type: 'status', status: 200, body: 'ok' };
      if (answer.type === 'hang') {
        hanging.add(res);
        return;
      }
      res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
      res.end(answer.body ?? '');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    script: (...next) => void answers.push(...next),
    ofType: (type) => received.filter((r) => (JSON.parse(r.body) as { type: string }).type === type),
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An app that may deliver to http:// URLs, with its in-process worker running, and a receiver. */
export async function startWebhookTestbed(): Promise<{ app: TestApp; receiver: WebhookReceiver }> {
  const app = await startTestApp({ env: { WEBHOOKS_ALLOW_HTTP: '1' } });
  await app.startWorker();
  return { app, receiver: await startWebhookReceiver() };
}
