// The design's floor: the throwaway prototype of ARCHITECTURE.md ("Metering that is durable and
// fast"), rebuilt so that this machine can measure it beside the real gateway. Koa with
// @koa/router, the key looked up by its SHA-256 in an in-memory map, the body checked by Ajv
// against the generated ChatCompletionRequest schema, an undici Pool to the stub, and one usage
// row per request, group-committed (every request that finishes while a commit is in flight
// shares the next one) through our own writer (src/metering/writeRecords.ts, with nothing but the
// usage line), before the answer is sent.
// Nothing else: no firewall, routing, cache, trace, audit or drain. Whatever the real gateway adds
// on top of these figures is its own work.
//
// SYNCHRONOUS_COMMIT (on | off, default off) is the commit's setting: the prototype's table
// measured both, and the product's default is `on` (durable: ARCHITECTURE.md, decision of
// 2026-11-24), so the bench runs one floor of each and holds the gateway to the durable one.
//
// Forked by bench/gateway.ts with UPSTREAM (the stub's origin), DATABASE_URL (a migrated bench
// database), API_KEY and WORKSPACE_ID / ORGANIZATION_ID (the key's) in its environment.
import { createHash, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import Koa from 'koa';
import pg from 'pg';
import { Pool } from 'undici';
import { Validator } from '../src/http/validation.js';
import { serializeRecords } from '../src/metering/records.js';
import type { UsageRecord } from '../src/metering/usageLines.js';
import { writeRecords } from '../src/metering/writeRecords.js';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};
const upstream = new Pool(env('UPSTREAM'), { connections: 64, pipelining: 1, keepAliveTimeout: 30_000 });
const keys = new Map([
  [createHash('sha256').update(env('API_KEY')).digest('hex'), { workspaceId: env('WORKSPACE_ID'), organizationId: env('ORGANIZATION_ID') }],
]);
const validator = new Validator();
const synchronousCommit = process.env.SYNCHRONOUS_COMMIT || 'off';
if (synchronousCommit !== 'on' && synchronousCommit !== 'off') throw new Error(`SYNCHRONOUS_COMMIT must be on or off, got ${synchronousCommit}`);
const db = new pg.Pool({ connectionString: env('DATABASE_URL'), max: 1, options: `-c synchronous_commit=${synchronousCommit}` });
// A dropped connection must fail the requests of its batch, not end the process (an unheard 'error' throws).
db.on('error', () => undefined);

type UsageRow = UsageRecord;

// Group commit: one multi-row insert in flight; whoever finishes meanwhile joins the next.
let waiting: { row: UsageRow; done: (err?: unknown) => void }[] = [];
let flushing = false;
function recordUsage(row: UsageRow): Promise<void> {
  const done = new Promise<void>((resolve, reject) => waiting.push({ row, done: (err) => (err ? reject(err) : resolve()) }));
  void flush();
  return done;
}
async function flush(): Promise<void> {
  if (flushing || waiting.length === 0) return;
  flushing = true;
  const batch = waiting;
  waiting = [];
  let error: unknown;
  try {
    await writeRecords(db, batch.map((w) => serializeRecords({ usage: [w.row] })));
  } catch (err) {
    error = err;
  }
  for (const waiter of batch) waiter.done(error);
  flushing = false;
  void flush();
}

function readBody(req: import('node:http').IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

const app = new Koa();
const router = new Router();
router.post('/v1/chat/completions', async (ctx) => {
  const bearer = /^Bearer\s+(\S+)$/i.exec(ctx.get('authorization'))?.[1];
  const principal = bearer ? keys.get(createHash('sha256').update(bearer).digest('hex')) : undefined;
  if (!principal) {
    ctx.status = 401;
    ctx.body = { message: 'invalid API key' };
    return;
  }
  const body = JSON.parse(await readBody(ctx.req)) as { model: string; messages: unknown[] };
  const errors = validator.check('ChatCompletionRequest', body);
  if (errors) {
    ctx.status = 422;
    ctx.body = { message: 'invalid request', errors };
    return;
  }
  const requestId = ctx.get('x-request-id') || randomUUID();
  const answer = await upstream.request({
    path: '/v1/chat/completions',
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'stub-chat', messages: body.messages }),
  });
  const completion = (await answer.body.json()) as { choices: unknown[]; usage: { prompt_tokens: number; completion_tokens: number } };
  const { prompt_tokens, completion_tokens } = completion.usage;
  const base = (prompt_tokens * 0.1 + completion_tokens * 0.3) / 1000;
  await recordUsage({
    organization_id: principal.organizationId,
    workspace_id: principal.workspaceId,
    request_id: requestId,
    line: 0,
    kind: 'chat',
    model: body.model,
    provider: 'stub',
    prompt_tokens,
    completion_tokens,
    cached_tokens: 0,
    credits: { base, services: 0, total: base },
    created_at: new Date().toISOString(),
  });
  ctx.set('X-Request-Id', requestId);
  ctx.body = {
    id: requestId,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: body.model,
    choices: completion.choices,
    usage: { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens, credits: { base, services: 0, total: base } },
  };
});
app.use(router.routes());

const server = createServer({ keepAlive: true }, app.callback());
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  process.send?.({ type: 'ready', port: (server.address() as AddressInfo).port });
});

const quit = () => {
  server.close();
  void Promise.allSettled([upstream.destroy(), db.end()]).finally(() => process.exit(0));
  setTimeout(() => process.exit(0), 500).unref();
};
process.on('disconnect', quit);
process.on('SIGTERM', quit);
process.on('SIGINT', quit);
