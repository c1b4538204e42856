import { Logger as WorkerLogger, parseCronItems, type ParsedCronItem, type Task, type TaskList } from 'graphile-worker';
import cacheExpire from '../../tasks/cache__expire.js';
import limitsReclaim from '../../tasks/limits__reclaim.js';
import memoryExtractFacts from '../../tasks/memory__extract_facts.js';
import memoryIngestDocument from '../../tasks/memory__ingest_document.js';
import memoryReembed from '../../tasks/memory__reembed.js';
import requestsPrune from '../../tasks/requests__prune.js';
import responsesPrune from '../../tasks/responses__prune.js';
import type { Queryable } from '../db/pool.js';
import { storableJson } from '../db/storable.js';
import type { Logger } from '../logger.js';
import webhooksDeliver from '../../tasks/webhooks__deliver.js';
import webhooksPrune from '../../tasks/webhooks__prune.js';
import type { TaskDefinition, WorkerServices } from './task.js';

// The registry of tasks/: one entry per file. Payload types come from each task's parser, so
// addJob cannot enqueue a payload its task would refuse.
const definitions = {
  cache__expire: cacheExpire,
  limits__reclaim: limitsReclaim,
  memory__extract_facts: memoryExtractFacts,
  memory__ingest_document: memoryIngestDocument,
  memory__reembed: memoryReembed,
  requests__prune: requestsPrune,
  responses__prune: responsesPrune,
  webhooks__deliver: webhooksDeliver,
  webhooks__prune: webhooksPrune,
};

type Definitions = typeof definitions;
export type TaskName = keyof Definitions;
export type PayloadOf<K extends TaskName> = Definitions[K] extends TaskDefinition<infer P> ? P : never;

export interface JobOptions {
  /** Deduplicates: a second job with the same key replaces a pending one instead of adding another. */
  jobKey?: string;
  runAt?: Date;
  maxAttempts?: number;
  queueName?: string;
}

/** Enqueues a job through the given connection, so it commits (or not) with the caller's transaction. */
export async function addJob<K extends TaskName>(
  db: Queryable,
  name: K,
  payload: PayloadOf<K>,
  options: JobOptions = {},
): Promise<void> {
  await db.query(
    `select graphile_worker.add_job(
       identifier => $1, payload => $2::json, queue_name => $3, run_at => $4,
       max_attempts => $5, job_key => $6)`,
    [
      name,
      storableJson(payload),
      options.queueName ?? null,
      options.runAt ?? null,
      options.maxAttempts ?? null,
      options.jobKey ?? null,
    ],
  );
}

/**
 * Webhook deliveries wait on receivers the service does not control (up to their timeout each):
 * the worker runs them in a pool of their own, so a receiver that hangs cannot hold the slots of
 * ingest, extraction or the cron jobs (worker.ts).
 */
export const DELIVERY_TASKS: readonly TaskName[] = ['webhooks__deliver'];

/** graphile-worker's task list: every task, or only `only` (a worker pool takes no job of a task outside its list). */
export function buildTaskList(services: WorkerServices, log: Logger, only?: (name: TaskName) => boolean): TaskList {
  const list: TaskList = {};
  for (const definition of Object.values(definitions) as TaskDefinition<unknown>[]) {
    if (only && !only(definition.name as TaskName)) continue;
    const task: Task = async (raw, helpers) => {
      const jobLog = log.child({ job_id: helpers.job.id, task: definition.name, attempt: helpers.job.attempts, ...idsOf(raw) });
      try {
        const payload = definition.parse(raw);
        await definition.run(payload, { ...services, log: jobLog, helpers });
      } catch (err) {
        // graphile-worker logs the failure too, but by its job id alone: this line names what
        // failed (the document, the submission, the delivery) by the ids an operator has.
        jobLog.warn({ err, max_attempts: helpers.job.max_attempts }, 'job attempt failed');
        throw err;
      }
    };
    list[definition.name] = task;
  }
  return list;
}

/** The ids a job's payload names (`document_id`, `submission_id`, …): what its log lines are found by. Never other values. */
function idsOf(payload: unknown): Record<string, string> {
  const ids: Record<string, string> = {};
  if (payload === null || typeof payload !== 'object') return ids;
  for (const [name, value] of Object.entries(payload)) {
    if (name.endsWith('_id') && typeof value === 'string' && value.length <= 64) ids[name] = value;
  }
  return ids;
}

interface LoggedJob {
  id?: string;
  task_identifier?: string;
}

// graphile-worker logs through its own interface; route it into pino so every line is JSON. Its
// meta can hold whole job rows, payloads included: of a job only its id and task are kept, of a
// list of jobs (or of their outcomes, when it could not record them) only the ids. Its worker
// objects and options are dropped for the same reason.
export function workerLogger(log: Logger): WorkerLogger {
  return new WorkerLogger((scope) => (level, message, meta) => {
    const method = level === 'warning' ? 'warn' : level;
    const { job, jobs, specs, cancelledJobs, forceFailedJobs, worker, options, payload, ...rest } = (meta ?? {}) as {
      job?: LoggedJob;
      jobs?: LoggedJob[];
      specs?: { job?: LoggedJob }[];
      cancelledJobs?: LoggedJob[];
      forceFailedJobs?: LoggedJob[];
      [field: string]: unknown;
    };
    const listed = [...(jobs ?? []), ...(cancelledJobs ?? []), ...(forceFailedJobs ?? []), ...(specs ?? []).map((spec) => spec.job)];
    const jobFields = {
      ...(job ? { job_id: job.id, task: job.task_identifier } : {}),
      ...(listed.length > 0 ? { job_ids: listed.map((listedJob) => listedJob?.id) } : {}),
    };
    log[method]({ ...scope, ...rest, ...jobFields }, message);
  });
}

/** Recurring jobs. */
export function cronItems(): ParsedCronItem[] {
  return parseCronItems([
    { task: 'cache__expire', match: '*/5 * * * *', identifier: 'cache__expire' },
    { task: 'limits__reclaim', match: '* * * * *', identifier: 'limits__reclaim' },
    { task: 'requests__prune', match: '17 * * * *', identifier: 'requests__prune' },
    { task: 'responses__prune', match: '37 * * * *', identifier: 'responses__prune' },
    { task: 'webhooks__prune', match: '41 * * * *', identifier: 'webhooks__prune' },
  ]);
}
