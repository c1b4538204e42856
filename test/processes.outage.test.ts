import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import { addJob } from '../src/jobs/registry.js';
import { fromRoot } from '../src/paths.js';
import { presentTrace } from '../src/http/presenters/trace.js';
import { findTraceDetail } from '../src/traces/store.js';
import { createKey } from '../src/tenancy/keys.js';
import { api, startTestApp, type TestApp } from './helpers/app.js';
import { createTestDatabase, waitFor, type TestDatabase } from './helpers/db.js';
import { descendants, exited, isAlive, startProcess } from './helpers/processes.js';
import { embeddingModel1024, FREE_SERVICES, loadTestCatalog } from './helpers/catalog.js';
import { startStubProvider } from './helpers/stubProvider.js';
import { startTcpProxy, type TcpProxy } from './helpers/tcpProxy.js';
import { createCollection, ingest, prose, startSlowEmbeddingCatalog } from './memory/documentsFixture.js';

// The Procfile's processes while their database goes away and comes back, as in a crash of Postgres
// (open connections reset, new ones refused). The shared Postgres is never stopped: the processes
// reach it through a TCP proxy that the test cuts and restores.


async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const proxyTo = (url: string) => {
  const { hostname, port } = new URL(url);
  return startTcpProxy({ host: hostname, port: Number(port || 5432) });
};

const isRunning = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

const CHAT_ON_STUB =
  '  - {id: test/chat, type: chat, context_length: 8192, pricing: {prompt: 1, completion: 1}, endpoints: [{provider: eu-slow, upstream_model: chat}]}';

async function statusOf(url: string, init: RequestInit = {}): Promise<number | undefined> {
  try {
    const response = await fetch(url, init);
    await response.arrayBuffer();
    return response.status;
  } catch {
    return undefined;
  }
}

const processOf = async (runner: ChildProcess, script: string) =>
  (await descendants(runner.pid!)).find((p) => p.command.includes('node') && p.command.includes(script))?.pid;

describe('web and worker through a database outage', function () {
  this.timeout(120_000);
  const children: ChildProcess[] = [];
  const cleanups: (() => Promise<void>)[] = [];

  /**
   * A web process on a database of its own whose catalogue's one provider, `eu-slow`, is a stub
   * (the `models:` entries given), ready, with an organization key; stopped and dropped after.
   */
  async function webOnStub(models: string, { throughProxy = false } = {}) {
    const db: TestDatabase = await createTestDatabase();
    cleanups.push(() => db.drop());
    const proxy = throughProxy ? await proxyTo(db.url) : undefined;
    if (proxy) cleanups.push(() => proxy.close());
    const stub = await startStubProvider();
    cleanups.push(() => stub.close());
    const { file } = loadTestCatalog(`
providers:
  - {id: eu-slow, region: eu, kind: openai, base_url: "${stub.url}", api_key: "\${STUB_KEY}", timeout_ms: 60000}
models:
${models}
aliases: {}
${FREE_SERVICES}
`);
    const created = await createKey(db.pool, { organization: 'acme', workspace: 'main', kind: 'organization' });
    const port = await freePort();
    const web = startProcess('src/server.js', { DATABASE_URL: proxy ? proxy.urlThrough(db.url) : db.url, PORT: String(port), CATALOG_FILE: file, STUB_KEY: 'sk-stub' });
    children.push(web.child);
    const base = `http://127.0.0.1:${port}`;
    await waitFor(async () => (await statusOf(`${base}/readyz`)) === 200, { timeoutMs: 15_000, what: `web to be ready\n${web.output()}` });
    return { db, stub, proxy, key: created.key, workspaceId: created.workspace_id, organizationId: created.organization_id, port, base, web };
  }
  afterEach(async () => {
    const running = children.splice(0).filter(isRunning);
    // The runner's processes too, which a SIGKILL of the runner would leave behind.
    for (const child of running) {
      for (const { pid } of await descendants(child.pid!)) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
      child.kill('SIGKILL');
    }
    await Promise.all(running.map((child) => exited(child)));
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('the worker survives a cut while a job runs, and runs jobs again once the database is back', async () => {
    const app: TestApp = await startTestApp();
    cleanups.push(() => app.close());
    const slow = await startSlowEmbeddingCatalog();
    cleanups.push(() => slow.stub.close());
    const proxy: TcpProxy = await proxyTo(app.db.url);
    cleanups.push(() => proxy.close());
    const worker = startProcess('src/worker.js', {
      DATABASE_URL: proxy.urlThrough(app.db.url),
      LOG_LEVEL: 'info',
      CATALOG_FILE: slow.file,
      ...slow.env,
    });
    children.push(worker.child);
    await waitFor(async () => worker.output().includes('worker running'), { timeoutMs: 15_000, what: `worker start\n${worker.output()}` });

    const { key } = await app.key();
    const collection = await createCollection(app, key, 'Polissen');
    slow.stub.script({ type: 'hang' });
    await ingest(app, key, { title: 'Polis', text: prose(2_000, 'nl'), collection });
    await waitFor(async () => slow.stub.requests.length === 1, { timeoutMs: 20_000, what: `the ingest to reach the embedder\n${worker.output()}` });

    // The database goes away while the task waits on its provider; then the provider breaks off, so
    // the task fails and graphile-worker must record the failure against a database that is not there.
    await proxy.cut();
    const cutAt = Date.now();
    await slow.stub.close();
    await waitFor(async () => worker.output().includes('Failed task'), { timeoutMs: 20_000, what: `the task to fail\n${worker.output()}` });
    // Recording that failure is what used to kill the worker, at once. Alive, it goes on trying to
    // reach the database: it still logs refused connections seconds into the outage.
    const refusedLaterThan = (at: number) =>
      worker
        .output()
        .split('\n')
        .some((line) => line.includes('ECONNREFUSED') && line.startsWith('{') && Date.parse(JSON.parse(line).time) > at);
    await waitFor(async () => refusedLaterThan(cutAt + 3_000) || !isRunning(worker.child), {
      timeoutMs: 20_000,
      what: `the worker to go on trying to reach the database\n${worker.output()}`,
    });
    expect(isRunning(worker.child), `the worker died during the outage:\n${worker.output()}`).to.equal(true);

    await proxy.restore();
    await addJob(app.db.pool, 'requests__prune', {});
    await waitFor(
      async () => {
        const { rows } = await app.db.pool.query<{ n: number }>(
          "select count(*)::int as n from graphile_worker.jobs where task_identifier = 'requests__prune'",
        );
        return rows[0]!.n === 0 || !isRunning(worker.child);
      },
      { timeoutMs: 30_000, what: `the worker to run a job after the outage\n${worker.output()}` },
    );
    expect(isRunning(worker.child), `the worker died after the outage:\n${worker.output()}`).to.equal(true);

    worker.child.kill('SIGTERM');
    expect(await exited(worker.child)).to.equal(0);
  });

  it('a stream still running when the web is told to stop ends with an error event, and is billed for what it streamed and traced as 503 before the web exits', async () => {
    const { db, stub, key, workspaceId, base, web } = await webOnStub(
      '  - {id: test/slow, type: chat, context_length: 8192, pricing: {prompt: 1, completion: 1}, endpoints: [{provider: eu-slow, upstream_model: slow}]}',
    );
    // Thirty seconds of answer: longer than the 10 s the web gives in-flight requests at shutdown.
    const slowAnswer = { type: 'answer' as const, chunks: Array.from({ length: 60 }, (_, i) => `woord${i} `), chunkDelayMs: 500 };
    stub.script(slowAnswer, slowAnswer);
    const streamed = fetch(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-request-id': 'stopped-1' },
      body: JSON.stringify({ model: 'test/slow', stream: true, messages: [{ role: 'user', content: 'Vertel een lang verhaal' }] }),
    }).then((response) => response.text().catch(() => ''));
    const streamedMessages = fetch(`${base}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', 'x-request-id': 'stopped-2' },
      body: JSON.stringify({ model: 'test/slow', stream: true, max_tokens: 1000, messages: [{ role: 'user', content: 'Vertel nog een verhaal' }] }),
    }).then((response) => response.text().catch(() => ''));
    await stub.waitFor(() => stub.requests.length > 1, 10_000);
    web.child.kill('SIGTERM');
    expect(await exited(web.child)).to.equal(0);
    // The client is told: a cut without it reads as a whole answer to an SDK.
    const body = await streamed;
    expect(body).to.contain('woord0');
    expect(body).to.contain('"code":"server_stopping"');
    expect(body).not.to.contain('[DONE]');
    const messages = await streamedMessages;
    expect(messages).to.contain('event: error');
    expect(messages).to.contain('"type":"overloaded_error"');
    expect(messages).to.contain('"code":"server_stopping"');
    expect(messages).not.to.contain('event: message_stop');
    expect(web.output()).not.to.contain('Cannot use a pool after calling end');
    const usage = (await db.pool.query(`select completion_tokens, partial from usage where request_id = 'stopped-1'`)).rows;
    expect(usage).to.have.length(1);
    expect(usage[0]).to.include({ partial: true });
    expect(usage[0].completion_tokens).to.be.above(0);
    expect((await db.pool.query(`select status from traces where id = 'stopped-1'`)).rows).to.deep.equal([{ status: 503 }]);
    // The trace shows what was billed, as a 499's does.
    const trace = presentTrace((await findTraceDetail(db.pool, workspaceId, 'stopped-1'))!, { memoryRead: true });
    expect(trace.usage?.completion_tokens).to.equal(usage[0].completion_tokens);
    expect(trace.usage?.credits.total).to.be.above(0);
  });

  it('a stopping web closes each kept-alive socket after its answer, so a client’s next request goes elsewhere, and exits once none is left', async () => {
    const { key, stub, port, web } = await webOnStub(CHAT_ON_STUB);
    stub.script({ type: 'answer', delayMs: 1_000 });
    // One kept-alive socket, busy with a chat when the web is told to stop.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    cleanups.push(async () => agent.destroy());
    const post = () =>
      new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
        const req = request(
          { agent, host: '127.0.0.1', port, method: 'POST', path: '/v1/chat/completions', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } },
          (res) => {
            res.resume();
            res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection }));
          },
        );
        req.on('error', reject);
        req.end(JSON.stringify({ model: 'test/chat', cache: false, messages: [{ role: 'user', content: 'Hallo' }] }));
      });
    expect((await post()).connection).to.equal('keep-alive');
    stub.script({ type: 'answer', delayMs: 1_500 });
    const busy = post();
    await stub.waitFor(() => stub.requests.length > 1, 10_000);
    const stoppedAt = Date.now();
    web.child.kill('SIGTERM');
    expect((await busy).status).to.equal(200);
    // The socket is closed after that answer: the next request finds no web listening here.
    const next = await post().then(
      (answer) => answer,
      (err: NodeJS.ErrnoException) => err.code,
    );
    expect(next).to.equal('ECONNREFUSED');
    expect(await exited(web.child)).to.equal(0);
    // Not the 10 s a request still running gets: nothing was left to wait for.
    expect(Date.now() - stoppedAt).to.be.below(8_000);
  });

  it('a chat still embedding its question for memory when the web is told to stop is answered 503 server_stopping, to retry, not 499', async () => {
    const { db, stub, key, workspaceId, organizationId, base, web } = await webOnStub(`${CHAT_ON_STUB}\n${embeddingModel1024('test/embed', [['eu-slow', 'embed']])}`);
    // The workspace holds memory, so a chat embeds its question first.
    await db.pool.query(
      `insert into facts (organization_id, workspace_id, content, content_hash, model, embedding, ts_config)
       values ($1, $2, 'Het eigen risico is 250 euro.', sha256('eigen risico'), 'test/embed', array_fill(0.03, array[1024])::vector, 'dutch')`,
      [organizationId, workspaceId],
    );
    // Longer than the 10 s the web gives requests in flight at shutdown.
    stub.script({ type: 'answer', delayMs: 30_000 });
    const answered = fetch(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'test/chat', messages: [{ role: 'user', content: 'Wat is mijn eigen risico?' }] }),
    });
    await stub.waitFor(() => stub.requests.length > 0, 10_000);
    expect(stub.requests[0]!.path).to.match(/embeddings$/);
    web.child.kill('SIGTERM');
    const response = await answered;
    expect(response.status).to.equal(503);
    expect(response.headers.get('retry-after')).to.equal('1');
    expect(((await response.json()) as { code: string }).code).to.equal('server_stopping');
    expect(await exited(web.child)).to.equal(0);
  });

  /** A web process, ready, on a database of its own that it reaches through a proxy the test can freeze. */
  async function webThroughProxy() {
    const db: TestDatabase = await createTestDatabase();
    cleanups.push(() => db.drop());
    const proxy = await proxyTo(db.url);
    cleanups.push(() => proxy.close());
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const web = startProcess('src/server.js', { DATABASE_URL: proxy.urlThrough(db.url), PORT: String(port), LOG_LEVEL: 'info' });
    children.push(web.child);
    await waitFor(async () => (await statusOf(`${base}/readyz`)) === 200, { timeoutMs: 15_000, what: `web to be ready\n${web.output()}` });
    return { db, proxy, base, web };
  }

  it('the web says it is not ready within seconds when the database hangs, and is ready again when it answers', async () => {
    const { proxy, base, web } = await webThroughProxy();

    proxy.freeze();
    const asked = Date.now();
    expect(await statusOf(`${base}/readyz`)).to.equal(503);
    expect(Date.now() - asked).to.be.below(4_000);
    expect(await statusOf(`${base}/healthz`)).to.equal(200);
    proxy.thaw();
    await waitFor(async () => (await statusOf(`${base}/readyz`)) === 200, { timeoutMs: 15_000, what: `web to be ready again\n${web.output()}` });
    expect(web.output()).not.to.contain('unhandled');
    web.child.kill('SIGTERM');
    expect(await exited(web.child)).to.equal(0);
  });

  it('while the database hangs, a request sent on an open connection is answered 503 rather than held, and a stop does not wait for it either', async () => {
    const { db, proxy, base, web } = await webThroughProxy();
    const created = await createKey(db.pool, { organization: 'acme', workspace: 'main', kind: 'organization' });
    const usage = () => fetch(`${base}/v1/usage`, { headers: { authorization: `Bearer ${created.key}` } });
    expect((await usage()).status).to.equal(200);

    proxy.freeze();
    // The key is cached, so the request goes straight to a query on one of the pool's open connections.
    const held = await usage();
    expect(held.status).to.equal(503);
    expect(held.headers.get('retry-after')).to.equal('2');
    expect(((await held.json()) as any).code).to.equal('service_unavailable');

    // Its pool's connections stay frozen: closing them would wait for the database without end.
    web.child.kill('SIGTERM');
    expect(await exited(web.child)).to.equal(1);
    // Given up on by a query's timeout, or else by the stop's deadline.
    expect(web.output()).to.match(/web did not stop (cleanly|within 25 s)/);
  });

  it('while the database hangs, a chat waiting for its records is answered 503 within the query timeout, not once the database answers again', async function () {
    // QA: held as long as the database was frozen (45 s), then answered 200: the records' own
    // connection had no timeout.
    this.timeout(60_000);
    const { stub, proxy, key, base } = await webOnStub(CHAT_ON_STUB, { throughProxy: true });
    stub.script({ type: 'answer', delayMs: 1_000 });
    const asked = Date.now();
    const answered = api(base, '/v1/chat/completions', { method: 'POST', key, body: { model: 'test/chat', cache: false, messages: [{ role: 'user', content: 'Hallo' }] } });
    await stub.waitFor(() => stub.requests.length > 0, 10_000);
    proxy!.freeze();
    const response = await answered;
    proxy!.thaw();
    expect(response.status).to.equal(503);
    expect(response.headers.get('retry-after')).to.equal('2');
    expect(Date.now() - asked).to.be.below(25_000);
  });

  it('the web answers 503 with retry-after while the database is away, and 200 again within seconds of its return', async () => {
    const db: TestDatabase = await createTestDatabase();
    cleanups.push(() => db.drop());
    const proxy = await proxyTo(db.url);
    cleanups.push(() => proxy.close());
    const { key } = await createKey(db.pool, { organization: 'acme', workspace: 'main', kind: 'organization' });
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const web = startProcess('src/server.js', { DATABASE_URL: proxy.urlThrough(db.url), PORT: String(port), LOG_LEVEL: 'info' });
    children.push(web.child);
    await waitFor(async () => (await statusOf(`${base}/readyz`)) === 200, { timeoutMs: 15_000, what: `web to be ready\n${web.output()}` });

    const models = () => api(base, '/v1/models', { key });
    const chat = () =>
      api(base, '/v1/chat/completions', { method: 'POST', key, body: { model: 'local/echo', messages: [{ role: 'user', content: 'hallo' }] } });
    expect((await models()).status).to.equal(200);
    expect((await chat()).status).to.equal(200);

    await proxy.cut();
    // The key may still be cached for a few seconds: /v1/models needs no database until it expires.
    const refused = await waitFor(
      async () => {
        const response = await models();
        return response.status === 200 ? undefined : response;
      },
      { timeoutMs: 15_000, what: 'an answer other than 200 during the outage' },
    );
    const expectUnavailable = (response: Awaited<ReturnType<typeof models>>) => {
      expect(response.status, response.text).to.equal(503);
      expect(response.headers.get('retry-after')).to.match(/^[1-9]\d*$/);
      expect(response.body).to.include({ code: 'service_unavailable' });
      expect(response.body.message).to.be.a('string');
      expect(response.body.error).to.include({ type: 'api_error', code: 'service_unavailable' });
    };
    expectUnavailable(refused);
    expectUnavailable(await chat());
    expect(await statusOf(`${base}/readyz`)).to.equal(503);
    expect(web.output()).not.to.contain('unhandled error');

    await proxy.restore();
    const restoredAt = Date.now();
    await waitFor(
      async () =>
        (await statusOf(`${base}/readyz`)) === 200 && (await models()).status === 200 && (await chat()).status === 200,
      { timeoutMs: 15_000, intervalMs: 100, what: `web to answer again after the outage\n${web.output()}` },
    );
    expect(Date.now() - restoredAt).to.be.below(15_000);
    expect(isRunning(web.child)).to.equal(true);

    web.child.kill('SIGTERM');
    expect(await exited(web.child)).to.equal(0);
  });

  describe("npm start's process runner (scripts/run-processes.sh)", () => {
    let db: TestDatabase;
    beforeEach(async () => {
      db = await createTestDatabase();
      cleanups.push(() => db.drop());
    });

    const startRunner = async () => {
      const port = await freePort();
      // Its own process group, as a terminal's foreground job is: a Ctrl-C reaches the whole group.
      const runner = spawn('bash', ['scripts/run-processes.sh'], {
        cwd: fromRoot(),
        env: { ...process.env, DATABASE_URL: db.url, PORT: String(port), LOG_LEVEL: 'info' },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      children.push(runner);
      let output = '';
      runner.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      runner.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const started = { runner, port, output: () => output };
      const base = `http://127.0.0.1:${port}`;
      await waitFor(async () => (await statusOf(`${base}/readyz`)) === 200 && output.includes('worker running'), {
        timeoutMs: 20_000,
        what: `web and worker to start\n${output}`,
      });
      return started;
    };
    const occurrences = (text: string, part: string) => text.split(part).length - 1;

    it('starts a worker again after it died, and leaves the web running', async () => {
      const { runner, port, output } = await startRunner();
      const webPid = await processOf(runner, 'dist/src/server.js');
      const firstWorker = await processOf(runner, 'dist/src/worker.js');
      expect(webPid).to.be.a('number');
      expect(firstWorker).to.be.a('number');

      process.kill(firstWorker!, 'SIGKILL');
      const secondWorker = await waitFor(
        async () => {
          const pid = await processOf(runner, 'dist/src/worker.js');
          return pid !== undefined && pid !== firstWorker && occurrences(output(), 'worker running') === 2 ? pid : undefined;
        },
        { timeoutMs: 20_000, what: `a new worker\n${output()}` },
      );
      expect(isRunning(runner)).to.equal(true);
      expect(await processOf(runner, 'dist/src/server.js')).to.equal(webPid);
      expect(await statusOf(`http://127.0.0.1:${port}/readyz`)).to.equal(200);
      expect(output()).to.match(/worker exited .*starting it again/);

      runner.kill('SIGTERM');
      expect(await exited(runner)).to.equal(0);
      expect(output()).to.contain('web stopped');
      expect(output()).to.contain('worker stopped');
      expect(isAlive(webPid!)).to.equal(false);
      expect(isAlive(secondWorker)).to.equal(false);
    });

    it('stops both, each cleanly, on a Ctrl-C', async () => {
      const { runner, output } = await startRunner();
      const pids = [await processOf(runner, 'dist/src/server.js'), await processOf(runner, 'dist/src/worker.js')];
      process.kill(-runner.pid!, 'SIGINT');
      expect(await exited(runner)).to.equal(0);
      expect(output()).to.contain('web stopped');
      expect(output()).to.contain('worker stopped');
      expect(output()).not.to.contain('did not stop cleanly');
      for (const pid of pids) expect(isAlive(pid!)).to.equal(false);
    });
  });
});
