import { run, type ParsedCronItem, type Runner, type RunnerOptions } from 'graphile-worker';
import { backoffDelay } from '../db/backoff.js';
import { buildTaskList, workerLogger } from './registry.js';
import type { Logger } from '../logger.js';
import type { WorkerServices } from './task.js';

export interface JobRunnerOptions {
  services: WorkerServices;
  log: Logger;
  concurrency: number;
  pollInterval?: number;
  cron?: ParsedCronItem[];
  events?: RunnerOptions['events'];
  /** Pauses between attempts to start graphile-worker again (defaults: RESTART_BACKOFF). */
  restartBackoff?: { initialMs: number; maxMs: number };
}

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
// after a pause. The job stays locked by the stopped pool until WorkerLiveness frees it. run()
// itself fails while the database is away (it checks the schema first); that is retried the same way.
export class JobRunner {
  private current: Runner | undefined;
  private currentEnded = false;
  private stopping = false;
  private supervising: Promise<void> | undefined;
  private started: Promise<boolean> | undefined;
  private wakeUp: (() => void) | undefined;
  private readonly backoff: { initialMs: number; maxMs: number };

  constructor(private readonly options: JobRunnerOptions) {
    this.backoff = options.restartBackoff ?? RESTART_BACKOFF;
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
    if (this.current && !this.currentEnded) await this.stopRunner(this.current);
    await this.supervising;
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
      try {
        runner = await run(this.runOptions());
      } catch (err) {
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
      // graphile-worker's own handlers keep this promise from rejecting; the catch is for safety.
      await runner.promise.catch((err: unknown) => log.error({ err }, 'job runner failed'));
      this.currentEnded = true;
      if (this.stopping) return;
      if (Date.now() - startedAt > HEALTHY_RUN_MS) failures = 0;
      const retryInMs = backoffDelay(failures++, this.backoff);
      log.error({ retry_in_ms: retryInMs }, 'job runner stopped by itself; starting it again');
      await this.pause(retryInMs);
    }
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
    const { services, log, concurrency, pollInterval, cron, events } = this.options;
    return {
      pgPool: services.db,
      concurrency,
      ...(pollInterval !== undefined ? { pollInterval } : {}),
      taskList: buildTaskList(services, log),
      logger: workerLogger(log),
      noHandleSignals: true,
      // Recurring jobs are declared in code; no crontab file is read.
      parsedCronItems: cron ?? [],
      ...(events ? { events } : {}),
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
