import { expect } from 'chai';
import { EventEmitter } from 'node:events';
import { run, type Runner, type RunnerOptions, type WorkerEvents, type WorkerPool } from 'graphile-worker';
import { createPool, type Pool } from '../../src/db/pool.js';
import { loadCatalog } from '../../src/gateway/catalog.js';
import { closeAdapters, createAdapters } from '../../src/gateway/providers/index.js';
import { JobRunner, startJobRunner } from '../../src/jobs/runner.js';
import { addJob, workerLogger } from '../../src/jobs/registry.js';
import { createTestDatabase, waitFor, type TestDatabase } from '../helpers/db.js';
import { capturedLogger } from '../helpers/logs.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcpProxy.js';

// The job runner keeps graphile-worker running through database outages: it starts it again when
// it stops by itself, and waits for the database when it is away at start.
describe('JobRunner', function () {
  this.timeout(60_000);
  let db: TestDatabase;
  let proxy: TcpProxy;
  let pool: Pool;
  const catalog = loadCatalog();
  const adapters = createAdapters();
  const quickRestarts = { initialMs: 50, maxMs: 400 };

  before(async () => {
    db = await createTestDatabase();
    const { hostname, port } = new URL(db.url);
    proxy = await startTcpProxy({ host: hostname, port: Number(port || 5432) });
  });
  beforeEach(() => {
    pool = createPool(proxy.urlThrough(db.url), 6);
  });
  afterEach(async () => {
    await proxy.restore();
    await pool.end();
  });
  after(async () => {
    await closeAdapters(adapters);
    await proxy.close();
    await db.drop();
  });

  const pruneJobsLeft = async () =>
    (await db.pool.query<{ n: number }>("select count(*)::int as n from graphile_worker.jobs where task_identifier = 'requests__prune'")).rows[0]!.n;

  it('starts graphile-worker again when its worker pool stops by itself, and runs jobs with the new one', async () => {
    const logs = capturedLogger('info');
    const events = new EventEmitter() as WorkerEvents;
    const pools: WorkerPool[] = [];
    events.on('pool:create', ({ workerPool }) => pools.push(workerPool));
    const jobs = await startJobRunner({
      services: { db: pool, catalog, adapters, replayRetentionHours: 24 },
      log: logs.log,
      concurrency: 1,
      pollInterval: 50,
      events,
      restartBackoff: quickRestarts,
    });
    try {
      expect(pools).to.have.length(1);
      // What graphile-worker does when it cannot record a job's outcome.
      void pools[0]!.gracefulShutdown('could not record an outcome');
      await waitFor(async () => pools.length === 2, { what: 'a second worker pool' });
      expect(logs.lines().some((line) => line.msg === 'job runner stopped by itself; starting it again')).to.equal(true);
      await addJob(db.pool, 'requests__prune', {});
      await waitFor(async () => (await pruneJobsLeft()) === 0, { what: 'the new pool to run the job' });
    } finally {
      await jobs.stop();
    }
  });

  it('waits for a database that is away at start, and starts once it is back', async () => {
    const logs = capturedLogger('info');
    await proxy.cut();
    const jobs = new JobRunner({ services: { db: pool, catalog, adapters, replayRetentionHours: 24 }, log: logs.log, concurrency: 1, pollInterval: 50, restartBackoff: quickRestarts });
    let started: boolean | undefined;
    const starting = jobs.start().then((running) => (started = running));
    try {
      await waitFor(async () => logs.lines().filter((line) => line.msg === 'job runner could not start; trying again').length >= 2, {
        what: 'attempts to start',
      });
      expect(started).to.equal(undefined);
      await proxy.restore();
      await starting;
      expect(started).to.equal(true);
      await addJob(db.pool, 'requests__prune', {});
      await waitFor(async () => (await pruneJobsLeft()) === 0, { what: 'the job to run' });
    } finally {
      await jobs.stop();
    }
  });

  it('stops at once when stopped while it waits for the database', async () => {
    const logs = capturedLogger('info');
    await proxy.cut();
    const jobs = new JobRunner({
      services: { db: pool, catalog, adapters, replayRetentionHours: 24 },
      log: logs.log,
      concurrency: 1,
      restartBackoff: { initialMs: 60_000, maxMs: 60_000 },
    });
    const starting = jobs.start();
    await waitFor(async () => logs.lines().some((line) => line.msg === 'job runner could not start; trying again'), { what: 'a failed start' });
    const stoppedAt = Date.now();
    await jobs.stop();
    expect(await starting).to.equal(false);
    // Well below the pause of a minute it was in.
    expect(Date.now() - stoppedAt).to.be.below(5_000);
  });

  it('gives up on a runner whose pool stopped its workers but never finishes, hands its pool over to free its jobs, and starts another', async () => {
    // graphile-worker 0.17.3's outcome batcher can miscount after a second failed batch, so the pool
    // it shut down never finishes: a runner like that, standing in for it.
    const logs = capturedLogger('info');
    const events = new EventEmitter() as WorkerEvents;
    let started = 0;
    const stuckRunner = async (options: RunnerOptions): Promise<Runner> => {
      started += 1;
      const id = `pool-stuck-${started}`;
      options.events!.emit('pool:create', { workerPool: { id } } as never);
      return { promise: new Promise<void>(() => undefined), stop: () => new Promise<void>(() => undefined) } as unknown as Runner;
    };
    const abandoned: string[][] = [];
    const jobs = new JobRunner({
      services: { db: pool, catalog, adapters, replayRetentionHours: 24 },
      log: logs.log,
      concurrency: 1,
      events,
      restartBackoff: quickRestarts,
      stuckShutdownMs: 100,
      run: stuckRunner,
      onAbandonedPools: (ids) => abandoned.push(ids),
    });
    expect(await jobs.start()).to.equal(true);
    events.emit('pool:gracefulShutdown:complete', { workerPool: { id: 'pool-stuck-1' } } as never);
    await waitFor(async () => started === 2, { what: 'a second runner' });
    expect(abandoned).to.deep.equal([['pool-stuck-1']]);
    expect(logs.lines().some((line) => line.msg === 'job runner stopped its workers but never finished shutting down; giving up on it')).to.equal(true);
    // A pool merely running is never given up on.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(abandoned).to.have.length(1);
    // A stop whose runner never finishes its stop() still returns once the pool has stopped its workers.
    const stopping = jobs.stop();
    events.emit('pool:gracefulShutdown:complete', { workerPool: { id: 'pool-stuck-2' } } as never);
    await stopping;
    expect(abandoned).to.deep.equal([['pool-stuck-1'], ['pool-stuck-2']]);
  });

  it('replaces a runner whose pool started while every connection was taken, so that it fetches jobs once Postgres has slots again', async () => {
    // graphile-worker 0.17.3 looks up its task ids once per run(), at its pool's first fetch, and
    // keeps that lookup's promise even when it failed: "too many clients already" (53300, which it
    // does not retry) at that moment and every later fetch of the pool fails with the same error.
    // Here the pool of the first runner finds every connection taken for its first half second.
    const logs = capturedLogger('info');
    const events = new EventEmitter() as WorkerEvents;
    const pools: WorkerPool[] = [];
    let refusing = false;
    let refused = 0;
    events.on('pool:create', ({ workerPool }) => {
      pools.push(workerPool);
      if (pools.length > 1) return;
      refusing = true;
      setTimeout(() => (refusing = false), 500);
    });
    const tooManyClients = () => {
      refused += 1;
      return Object.assign(new Error('sorry, too many clients already'), { code: '53300', severity: 'FATAL' });
    };
    // The pool graphile-worker is given; connect() (promise or callback) fails while refusing.
    const full = new Proxy(pool, {
      get(target, prop) {
        if (prop === 'connect') {
          return (callback?: (err: Error | undefined, ...rest: unknown[]) => void) => {
            if (!refusing) return callback ? target.connect(callback as never) : target.connect();
            const err = tooManyClients();
            if (callback) return void process.nextTick(() => callback(err));
            return Promise.reject(err);
          };
        }
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const jobs = await startJobRunner({
      services: { db: pool, catalog, adapters, replayRetentionHours: 24 },
      log: logs.log,
      concurrency: 1,
      pollInterval: 50,
      events,
      restartBackoff: quickRestarts,
      run: (options) => run({ ...options, pgPool: full }),
    });
    try {
      await waitFor(async () => !refusing, { what: 'Postgres to have slots again' });
      expect(refused).to.be.above(0);
      await addJob(db.pool, 'requests__prune', {});
      await waitFor(async () => (await pruneJobsLeft()) === 0, { what: 'a pool to run the job', timeoutMs: 10_000 });
      expect(pools.length).to.be.above(1);
      expect(logs.lines().some((line) => line.msg === 'job runner cannot fetch jobs; replacing it')).to.equal(true);
    } finally {
      await jobs.stop();
    }
  });

  it('replaces a runner whose pool has failed every fetch for wedgedFetchMs, and not one whose fetches fail now and then', async () => {
    const logs = capturedLogger('info');
    const events = new EventEmitter() as WorkerEvents;
    let started = 0;
    let stopped = 0;
    const fakeRun = async (options: RunnerOptions): Promise<Runner> => {
      started += 1;
      options.events!.emit('pool:create', { workerPool: { id: `pool-${started}` } } as never);
      let finish!: () => void;
      const promise = new Promise<void>((resolve) => (finish = resolve));
      return { promise, stop: async () => void (stopped += 1, finish()) } as unknown as Runner;
    };
    const fetch = (pool: string, failed: boolean) =>
      failed
        ? events.emit('worker:getJob:error', { worker: { workerPool: { id: pool } }, error: new Error('sorry, too many clients already') } as never)
        : events.emit('worker:getJob:empty', { worker: { workerPool: { id: pool } } } as never);
    const jobs = new JobRunner({
      services: { db: pool, catalog, adapters, replayRetentionHours: 24 },
      log: logs.log,
      concurrency: 1,
      events,
      restartBackoff: quickRestarts,
      wedgedFetchMs: 200,
      run: fakeRun,
    });
    expect(await jobs.start()).to.equal(true);
    try {
      // Failures with a success in between: never wedged.
      for (let i = 0; i < 6; i++) {
        fetch('pool-1', true);
        await new Promise((resolve) => setTimeout(resolve, 60));
        if (i % 2 === 1) fetch('pool-1', false);
      }
      expect(stopped).to.equal(0);
      // Only failures, each a new error: replaced once they have lasted 200 ms.
      const failing = setInterval(() => fetch(`pool-${started}`, true), 40);
      try {
        await waitFor(async () => started === 2, { what: 'a second runner' });
      } finally {
        clearInterval(failing);
      }
      expect(stopped).to.equal(1);
      expect(logs.lines().find((line) => line.msg === 'job runner cannot fetch jobs; replacing it')?.reason).to.match(/every fetch has failed for/);
    } finally {
      await jobs.stop();
    }
  });

  it("logs graphile-worker's lists of jobs as their ids, never their rows", () => {
    const logs = capturedLogger('debug');
    const row = { id: '7', task_identifier: 'memory__extract_facts', payload: { submission_id: 'secret-ish' }, last_error: 'x' };
    const logger = workerLogger(logs.log);
    logger.error('Failed to complete jobs', { fatalError: new Error('gone'), jobs: [row] });
    logger.error('Failed to fail jobs', { fatalError: new Error('gone'), specs: [{ job: row, message: 'boom' }] });
    logger.debug('Cancelled', { cancelledJobs: [row] });
    const lines = logs.lines();
    expect(lines.map((line) => line.job_ids)).to.deep.equal([['7'], ['7'], ['7']]);
    expect(logs.text()).not.to.contain('secret-ish');
    expect(logs.text()).not.to.contain('payload');
  });
});
