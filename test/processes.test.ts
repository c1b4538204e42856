import { expect } from 'chai';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createTestDatabase, waitFor, type TestDatabase } from './helpers/db.js';
import { exited, startProcess } from './helpers/processes.js';

// The Procfile's processes, started as a person or a platform would start them.
describe('web and worker processes', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
  });
  after(async () => {
    await db.drop();
  });

  it('web refuses to start with a broken catalogue, naming the bad field', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'polder-catalog-'));
    const file = join(dir, 'catalog.yaml');
    writeFileSync(
      file,
      'providers:\n  - {id: p, region: mars, kind: openai, base_url: "http://x"}\nmodels: []\nservices: {firewall_per_1k_tokens: 0, retrieval_per_call: 0, ingest_per_chunk: 0}\n',
    );
    const web = startProcess('src/server.js', { DATABASE_URL: db.url, CATALOG_FILE: file, PORT: '18099' });
    expect(await exited(web.child)).to.equal(78); // EX_CONFIG: a configuration error, not restarted
    expect(web.output()).to.contain('providers.0 (p).region must be one of eu, external');
    // A configuration error is its message: no stack, in the log line or anywhere else.
    expect(web.output()).to.contain('polder: cannot start: catalog');
    expect(web.output()).not.to.match(/"stack"|\bat loadCatalog\b|\n\s+at /);
    const fatal = web.output().split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line)).find((entry) => entry.level === 60);
    expect(fatal.msg).to.match(/^catalog .* is invalid: providers\.0 \(p\)\.region/);
    expect(fatal.problems).to.include('providers.0 (p).region must be one of eu, external');
    expect(fatal).not.to.have.property('err');
  });

  it('worker refuses to start with a broken catalogue, with the message and no stack', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'polder-catalog-'));
    const file = join(dir, 'catalog.yaml');
    writeFileSync(
      file,
      'providers:\n  - {id: p, region: mars, kind: openai, base_url: "http://x"}\nmodels: []\nservices: {firewall_per_1k_tokens: 0, retrieval_per_call: 0, ingest_per_chunk: 0}\n',
    );
    const worker = startProcess('src/worker.js', { DATABASE_URL: db.url, CATALOG_FILE: file });
    expect(await exited(worker.child)).to.equal(78);
    expect(worker.output()).to.contain('polder: cannot start: catalog');
    expect(worker.output()).not.to.match(/"stack"|\n\s+at /);
  });

  it('web and worker refuse to start on a database that does not exist, saying so, rather than answering 503 for ever', async () => {
    // QA: a mistyped database name gave a web that listened, answered 503s and logged warnings, never the cause.
    const missing = new URL(db.url);
    missing.pathname = '/polder_no_such_database';
    for (const entry of ['src/server.js', 'src/worker.js']) {
      const started = startProcess(entry, { DATABASE_URL: missing.toString(), PORT: '18098' });
      expect(await exited(started.child), entry).to.equal(78);
      expect(started.output()).to.contain('polder: cannot start: the database DATABASE_URL names does not exist');
      expect(started.output()).not.to.match(/"stack"|\n\s+at /);
    }
  });

  for (const [entry, variable, message] of [
    ['src/server.js', 'PORT', (port: number) => `polder: cannot start: port ${port} is already in use`],
    ['src/worker.js', 'METRICS_PORT', (port: number) => `polder: cannot start: METRICS_PORT ${port} is already in use`],
  ] as const) {
    it(`${entry} refuses to start on a ${variable} already taken, with a plain message naming it`, async () => {
      const taken = createServer();
      await new Promise<void>((resolve) => taken.listen(0, resolve));
      try {
        const port = (taken.address() as AddressInfo).port;
        const started = startProcess(entry, { DATABASE_URL: db.url, [variable]: String(port) });
        expect(await exited(started.child)).to.equal(78); // EX_CONFIG: a configuration error, not restarted
        expect(started.output()).to.contain(message(port));
        expect(started.output()).not.to.contain('Unhandled');
        expect(started.output()).not.to.contain('"stack"');
      } finally {
        taken.close();
      }
    });
  }

  it('web serves, then stops cleanly on SIGTERM', async () => {
    const port = 20000 + Math.floor(Math.random() * 20000);
    const web = startProcess('src/server.js', { DATABASE_URL: db.url, PORT: String(port), LOG_LEVEL: 'info' });
    const ready = await waitFor(
      async () => {
        try {
          return (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200;
        } catch {
          return false;
        }
      },
      { timeoutMs: 15_000, what: 'web to answer /readyz' },
    );
    expect(ready).to.equal(true);
    web.child.kill('SIGTERM');
    expect(await exited(web.child)).to.equal(0);
    expect(web.output()).to.contain('web stopped');
  });

  it('worker runs, then stops cleanly on SIGTERM', async () => {
    const worker = startProcess('src/worker.js', { DATABASE_URL: db.url, LOG_LEVEL: 'info' });
    await waitFor(async () => worker.output().includes('worker running'), { timeoutMs: 15_000, what: 'worker start' });
    worker.child.kill('SIGTERM');
    expect(await exited(worker.child)).to.equal(0);
    expect(worker.output()).to.contain('worker stopped');
  });
});
