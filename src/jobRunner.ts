import { run, type ParsedCronItem, type Runner } from 'graphile-worker';
import { buildTaskList, workerLogger } from './jobs.js';
import type { Logger } from './logger.js';
import type { WorkerServices } from './task.js';

export interface JobRunner {
  runner: Runner;
  stop(): Promise<void>;
}

/** graphile-worker with every task. The worker process runs it; so do the tests, with their own database. */
export async function startJobRunner(options: {
  services: WorkerServices;
  log: Logger;
  concurrency: number;
  pollInterval?: number;
  cron?: ParsedCronItem[];
  events?: Parameters<typeof run>[0]['events'];
}): Promise<JobRunner> {
  const { services, log } = options;
  const runner = await run({
    pgPool: services.db,
    concurrency: options.concurrency,
    ...(options.pollInterval !== undefined ? { pollInterval: options.pollInterval } : {}),
    taskList: buildTaskList(services, log),
    logger: workerLogger(log),
    noHandleSignals: true,
    // Recurring jobs are declared in code; no crontab file is read.
    parsedCronItems: options.cron ?? [],
    ...(options.events ? { events: options.events } : {}),
  });
  return {
    runner,
    async stop() {
      // stop() lets running jobs finish before it resolves.
      await runner.stop();
    },
  };
}
