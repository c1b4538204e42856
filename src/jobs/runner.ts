import { EventEmitter } from 'node:events';
import { run, type ParsedCronItem, type Runner, type RunnerOptions, type WorkerEvents } from 'graphile-worker';
import { backoffDelay } from '../db/backoff.js';
import { buildTaskList, workerLogger, type TaskName } from './registry.js';
import type { Logger } from '../logger.js';
import type { WorkerServices } from './task.js';

export interface JobRunnerOptions {
  services: WorkerServices;
  log: Logger;
  concurrency: number;
  /** The tasks this runner takes (default: every task). */
  only?: (name: TaskName) => boolean;
  pollInterval?: number;
  cron?: ParsedCronItem[];
  /** Where its pools announce themselves; one emitter per runner (it reads every pool on it as its own). */
  events?: RunnerOptions['events'];
  /** Pauses between attempts to start graphile-worker again (defaults: RESTART_BACKOFF). */
  restartBackoff?: { initialMs: number; maxMs: number };
  /**
   * Worker pools given up on: they shut down but never finished (see STUCK_SHUTDOWN_MS). Their
   * jobs are no longer running and are still locked by them (WorkerLiveness.abandon frees them).
   */
  onAbandonedPools?: (poolIds: string[]) => void;
  /** How long a pool whose workers have stopped may take to finish (default STUCK_SHUTDOWN_MS). */
  stuckShutdownMs?: number;
  /** How long every fetch of a pool may fail before it is replaced (default WEDGED_FETCH_MS). */
  wedgedFetchMs?: number;
  /** graphile-worker's run(); tests give one whose runner never finishes. */
  run?: (options: RunnerOptions) => Promise<Runner>;
}

// graphile-worker 0.17.3's outcome batcher miscounts after a second failed batch (its backpressure
// is never reset, so its count of batches in flight goes below zero): a pool shut down by a failed
// batch stops its workers, then waits forever to release the batcher, and run()'s promise never
// settles. Seen in 2 of 34 Postgres crashes under ingest. Once a pool's workers have stopped, it has
// this long to finish; then it is given up on and a new runner starts.
export const STUCK_SHUTDOWN_MS = 5_000;

// graphile-worker 0.17.3 looks up the ids of its tasks once per run(), at its pool's first fetch of
// a job, and keeps that lookup's promise for the life of the pool even when it failed. It retries
// the lookup only for a few error codes, not "too many clients already" (53300): a pool whose first
// fetch found every connection of Postgres taken fails every later fetch with that same error,
// however many connections are free by then, and logs it at debug only. A new run() looks up again.
// So a pool that fails a fetch with an error it already failed one with is replaced at once, and
// (in case a pool can be wedged some other way) so is one whose fetches have all failed for this
// long: during an outage that only means a new runner, which waits for the database as at start.
export const WEDGED_FETCH_MS = 30_000;

export const RESTART_BACKOFF = { initialMs: 500, maxMs: 15_000 };
// A runner that ran this long before it stopped was healthy: its successor starts after the shortest pause.
const HEALTHY_RUN_MS = 60_000;

// graphile-worker with every task, kept running through database outages. The worker process runs
// it; so do the tests, with their own database.
//
// What graphile-worker 0.17 does when the database goes away: fetching jobs, the LISTEN connection,
// the cron and the reset of stale locks each retry by themselves. Recording a job's outcome does
// not: by default completeJob/failJob make one attempt whose promise nobody awaits, so the first
// ECONNREFUSED is an unhandled rejection that kills the process. With a batch delay (0: no waiting,
// only what ends in the same tick is batched) the outcome goes through graphile-worker's batcher
// instead, whose failure is handled: it shuts the worker pool down (in 0.17.3 at the first failed
// attempt, its retry options notwithstanding), run()'s promise settles, and this starts a new runner
// after a pause (or, when the pool never finishes, this gives up on it: STUCK_SHUTDOWN_MS). The job
// stays locked by the stopped pool until WorkerLiveness frees it. run() itself fails while the
// database is away (it checks the schema first); that is retried the same way. A pool that can no
// longer fetch a job although it runs (WEDGED_FETCH_MS) is stopped, and replaced the same way.
export class JobRunner {
  private current: Runner | undefined;
  private currentEnded = false;
  private stopping = false;
  private supervising: Promise<void> | undefined;
  private started: Promise<boolean> | undefined;
  private wakeUp: (() => void) | undefined;
  private readonly backoff: { initialMs: number; maxMs: number };
  /** The events graphile-worker's pools announce themselves on: the caller's, or this runner's own. */
  private readonly events: WorkerEvents;

  constructor(private readonly options: JobRunnerOptions) {
    this.backoff = options.restartBackoff ?? RESTART_BACKOFF;
    this.events = options.events ?? (new EventEmitter() as WorkerEvents);
  }

  /** The graphile-worker runner running now (a new one after each restart). */
  get runner(): Runner {
    if (!this.current) throw new Error('the job runner has not started');
    return this.current;
  }

  /**
   * Resolves true once graphile-worker runs (after as many attempts as that takes), or false when
   * stop() came first.
   */
  start(): Promise<boolean> {
    if (!this.supervising) {
      let running!: () => void;
      const started = new Promise<void>((resolve) => (running = resolve));
      this.supervising = this.supervise(running).finally(running);
      this.started = started.then(() => this.current !== undefined && !this.stopping);
    }
    return this.started!;
  }

  /** Lets running jobs finish, and starts no other runner. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wakeUp?.();
    // A runner stuck in its shutdown never finishes its stop(); the supervisor gives up on it.
    const stopped = this.current && !this.currentEnded ? this.stopRunner(this.current) : undefined;
    await Promise.race([stopped ?? this.supervising, this.supervising]);
  }

  // A runner that stopped by itself in the meantime refuses a second stop; that is no failure.
  private async stopRunner(runner: Runner): Promise<void> {
    try {
      await runner.stop();
    } catch (err) {
      this.options.log.debug({ err }, 'job runner was already stopping');
    }
  }

  private async supervise(running: () => void): Promise<void> {
    const { log } = this.options;
    let failures = 0;
    while (!this.stopping) {
      let runner: Runner;
      const pools = this.poolsOfNextRunner();
      try {
        runner = await (this.options.run ?? run)(this.runOptions());
      } catch (err) {
        pools.forget();
        if (this.stopping) return;
        const retryInMs = backoffDelay(failures++, this.backoff);
        log.warn({ err, retry_in_ms: retryInMs }, 'job runner could not start; trying again');
        await this.pause(retryInMs);
        continue;
      }
      const startedAt = Date.now();
      this.current = runner;
      this.currentEnded = false;
      running();
      // A stop() that came while run() was starting found no runner to stop.
      if (this.stopping) await this.stopRunner(runner);
      let replaced = false;
      void pools.wedged.then((reason) => {
        if (this.stopping || this.current !== runner || this.currentEnded) return;
        replaced = true;
        log.error({ pools: pools.ids, reason }, 'job runner cannot fetch jobs; replacing it');
        void this.stopRunner(runner);
      });
      // graphile-worker's own handlers keep this promise from rejecting; the catch is for safety.
      const ended = await Promise.race([
        runner.promise.then(
          () => 'finished' as const,
          (err: unknown) => {
            log.error({ err }, 'job runner failed');
            return 'finished' as const;
          },
        ),
        pools.stuck,
      ]);
      pools.forget();
      this.currentEnded = true;
      if (ended === 'stuck') {
        log.error({ pools: pools.ids }, 'job runner stopped its workers but never finished shutting down; giving up on it');
        this.options.onAbandonedPools?.(pools.ids);
      }
      if (this.stopping) return;
      if (Date.now() - startedAt > HEALTHY_RUN_MS) failures = 0;
      const retryInMs = backoffDelay(failures++, this.backoff);
      if (replaced) log.warn({ retry_in_ms: retryInMs }, 'job runner stopped; starting a new one');
      else log.error({ retry_in_ms: retryInMs }, 'job runner stopped by itself; starting it again');
      await this.pause(retryInMs);
    }
  }

  /**
   * The pools the next runner creates; a promise that resolves 'stuck' once one of them has
   * stopped its workers and not finished within stuckShutdownMs; and one that resolves (with why)
   * once one of them is wedged: it fails every fetch of a job (WEDGED_FETCH_MS).
   */
  private poolsOfNextRunner(): { ids: string[]; stuck: Promise<'stuck'>; wedged: Promise<string>; forget: () => void } {
    const ids: string[] = [];
    const wedgedMs = this.options.wedgedFetchMs ?? WEDGED_FETCH_MS;
    // Per pool: the errors its fetches failed with, and since when they have all failed.
    const fetches = new Map<string, { errors: WeakSet<object>; failingSince: number | undefined }>();
    let onWedged!: (reason: string) => void;
    const wedged = new Promise<string>((resolve) => (onWedged = resolve));
    const onFetchError = ({ worker, error }: { worker: { workerPool: { id: string } }; error: unknown }) => {
      const fetch = fetches.get(worker.workerPool.id);
      if (!fetch) return;
      const now = Date.now();
      fetch.failingSince ??= now;
      if (typeof error === 'object' && error !== null) {
        if (fetch.errors.has(error)) onWedged('it fails every fetch with the error of an earlier one');
        fetch.errors.add(error);
      }
      if (now - fetch.failingSince >= wedgedMs) onWedged(`every fetch has failed for ${now - fetch.failingSince} ms`);
    };
    const onFetched = ({ worker }: { worker: { workerPool: { id: string } } }) => {
      const fetch = fetches.get(worker.workerPool.id);
      if (fetch) fetch.failingSince = undefined;
    };
    let timer: NodeJS.Timeout | undefined;
    let onStopped!: () => void;
    const stuck = new Promise<'stuck'>((resolve) => {
      onStopped = () => {
        timer ??= setTimeout(() => resolve('stuck'), this.options.stuckShutdownMs ?? STUCK_SHUTDOWN_MS);
      };
    });
    const onCreate = ({ workerPool }: { workerPool: { id: string } }) => {
      ids.push(workerPool.id);
      fetches.set(workerPool.id, { errors: new WeakSet(), failingSince: undefined });
    };
    this.events.on('pool:create', onCreate);
    this.events.on('pool:gracefulShutdown:complete', onStopped);
    this.events.on('pool:forcefulShutdown:complete', onStopped);
    this.events.on('worker:getJob:error', onFetchError);
    this.events.on('worker:getJob:empty', onFetched);
    this.events.on('job:start', onFetched);
    const forget = () => {
      clearTimeout(timer);
      this.events.off('pool:create', onCreate);
      this.events.off('pool:gracefulShutdown:complete', onStopped);
      this.events.off('pool:forcefulShutdown:complete', onStopped);
      this.events.off('worker:getJob:error', onFetchError);
      this.events.off('worker:getJob:empty', onFetched);
      this.events.off('job:start', onFetched);
    };
    return { ids, stuck, wedged, forget };
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }

  private runOptions(): RunnerOptions {
    const { services, log, concurrency, pollInterval, cron, only } = this.options;
    return {
      pgPool: services.db,
      concurrency,
      ...(pollInterval !== undefined ? { pollInterval } : {}),
      taskList: buildTaskList(services, log, only),
      logger: workerLogger(log),
      noHandleSignals: true,
      // Recurring jobs are declared in code; no crontab file is read.
      parsedCronItems: cron ?? [],
      events: this.events,
      // Outcomes through the batcher, whose failures are handled (see above).
      preset: { worker: { completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
    };
  }
}

/** Starts a JobRunner and resolves once graphile-worker runs. */
export async function startJobRunner(options: JobRunnerOptions): Promise<JobRunner> {
  const jobs = new JobRunner(options);
  await jobs.start();
  return jobs;
}
