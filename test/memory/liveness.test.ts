import { expect } from 'chai';
import type { ChildProcess } from 'node:child_process';
import { ingestJobKey } from '../../src/memory/documents.js';
import { api, startTestApp, type TestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';
import { exited, startProcess } from '../helpers/processes.js';
import type { StubProvider } from '../helpers/stubProvider.js';
import { createCollection, ingest, prose, settled, startSlowEmbeddingCatalog } from './documentsFixture.js';

// The Procfile's worker process, killed in the middle of an ingest (SIGKILL: no cleanup at all).
// graphile-worker alone would keep the job locked for 4 hours; src/jobs/liveness.ts frees it
// once the dead pool's heartbeat is stale, so the next worker finishes the document.
describe('a worker killed mid-ingest', function () {
  this.timeout(120_000);
  let app: TestApp;
  let embedder: StubProvider;
  let workerEnv: NodeJS.ProcessEnv;
  const children: ChildProcess[] = [];
  before(async () => {
    // The API only: every worker here is a process of its own, embedding through a stub provider.
    app = await startTestApp();
    const slow = await startSlowEmbeddingCatalog();
    embedder = slow.stub;
    workerEnv = { CATALOG_FILE: slow.file, ...slow.env };
  });
  after(async () => {
    const running = children.filter((child) => child.exitCode === null && child.signalCode === null);
    for (const child of running) child.kill('SIGKILL');
    await Promise.all(running.map((child) => exited(child)));
    await app.close();
    await embedder.close();
  });

  const worker = (env: NodeJS.ProcessEnv) => {
    const started = startProcess('src/worker.js', { DATABASE_URL: app.db.url, LOG_LEVEL: 'info', ...workerEnv, ...env });
    children.push(started.child);
    return started;
  };
  const jobOf = async (id: string) =>
    (await app.db.pool.query('select locked_by, attempts from graphile_worker.jobs where key = $1', [ingestJobKey(id)])).rows[0];

  it('leaves a document that still reaches ready once a worker runs again, within a minute', async () => {
    const { key } = await app.key();
    const slug = await createCollection(app, key, 'Handboeken');
    const text = prose(100_000, 'nl');
    const id = await ingest(app, key, { title: 'Groot handboek', text, collection: slug });

    // The embedding provider never answers the first worker: its ingest stays `processing` until it is killed.
    embedder.script({ type: 'hang' });
    const doomed = worker({});
    const lockedBy = await waitFor(
      async () => {
        const document = await api(app.baseUrl, `/v1/memory/documents/${id}`, { key });
        const job = await jobOf(id);
        // Killed once it waits on its embeddings, not while it still chunks.
        const waiting = document.body.data.status === 'processing' && embedder.requests.length === 1;
        return waiting && job?.locked_by ? (job.locked_by as string) : undefined;
      },
      { timeoutMs: 20_000, what: `the first worker to start the ingest\n${doomed.output()}` },
    );
    // Its two pools (jobs, and webhook deliveries) beat; the one that runs the ingest among them.
    const beats = await app.db.pool.query('select pool_id, pid from worker_heartbeats');
    expect(beats.rows.map((r) => r.pid)).to.deep.equal([doomed.child.pid, doomed.child.pid]);
    expect(beats.rows.map((r) => r.pool_id)).to.include(lockedBy);

    doomed.child.kill('SIGKILL');
    await exited(doomed.child);
    const killedAt = Date.now();
    // Still locked by the dead pool: nothing in graphile-worker itself would run it for hours.
    expect((await jobOf(id)).locked_by).to.equal(lockedBy);
    expect((await api(app.baseUrl, `/v1/memory/documents/${id}`, { key })).body.data.status).to.equal('processing');

    const rescuer = worker({});
    const document = await settled(app, key, id, 60_000);
    const took = Date.now() - killedAt;
    expect(document).to.include({ status: 'ready', title: 'Groot handboek' });
    expect(document.chunk_count).to.be.greaterThan(30);
    expect(took).to.be.below(60_000);
    expect(rescuer.output()).to.contain('released the jobs of worker pools whose heartbeat stopped');
    expect(rescuer.output()).to.contain(lockedBy);
    // Done once: one set of chunks, one bill.
    const chunks = await app.db.pool.query('select count(*)::int as n from chunks where document_id = $1', [id]);
    expect(chunks.rows[0].n).to.equal(document.chunk_count);
    const usage = await app.db.pool.query('select count(*)::int as n from usage where request_id = $1', [`ingest:${id}`]);
    expect(usage.rows[0].n).to.equal(1);

    // Only the live worker has a heartbeat; a clean stop removes it too.
    const live = await app.db.pool.query('select pool_id, pid from worker_heartbeats');
    expect(live.rows.map((r) => r.pid)).to.deep.equal([rescuer.child.pid, rescuer.child.pid]);
    rescuer.child.kill('SIGTERM');
    expect(await exited(rescuer.child)).to.equal(0);
    expect((await app.db.pool.query('select count(*)::int as n from worker_heartbeats')).rows[0].n).to.equal(0);
  });
});
