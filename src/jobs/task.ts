import { Ajv, type SchemaObject } from 'ajv';
import type { JobHelpers } from 'graphile-worker';
import type { Pool } from '../db/pool.js';
import type { Catalog } from '../gateway/catalog.js';
import type { Adapters } from '../gateway/providers/index.js';
import type { Logger } from '../logger.js';
import type { WebhookDeliveryOptions } from '../webhooks/delivery.js';

/** What the worker process shares with its tasks. */
export interface WorkerServices {
  db: Pool;
  catalog: Catalog;
  adapters: Adapters;
  /** REPLAY_RETENTION_HOURS (Config). */
  replayRetentionHours: number;
  /** RESPONSES_RETENTION_DAYS (Config); DEFAULT_RESPONSES_RETENTION_DAYS when not given. */
  responsesRetentionDays?: number;
  /** How webhooks are delivered; left out, the defaults (https only, the ~24 h retry schedule). */
  webhooks?: Partial<WebhookDeliveryOptions>;
}

// What every task receives besides its payload: the shared services and a logger bound to the job.
export interface TaskContext extends WorkerServices {
  log: Logger;
  helpers: JobHelpers;
}

export interface TaskDefinition<P> {
  name: string;
  /** Throws when the payload is not what the task expects, so a bad job fails loudly, not half-way. */
  parse(raw: unknown): P;
  run(payload: P, ctx: TaskContext): Promise<void>;
}

const ajv = new Ajv({ allErrors: true });

export function payloadParser<P>(taskName: string, schema: SchemaObject): (raw: unknown) => P {
  const validate = ajv.compile<P>(schema);
  return (raw: unknown): P => {
    if (validate(raw)) return raw;
    const reasons = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`);
    throw new Error(`${taskName}: invalid payload: ${reasons.join('; ')}`);
  };
}

export function defineTask<P>(definition: TaskDefinition<P>): TaskDefinition<P> {
  return definition;
}

/** The parser of a task that takes no payload: an object (cron jobs pass `{}`) or null. */
export function noPayload(taskName: string): (raw: unknown) => Record<string, never> {
  const check = payloadParser<object | null>(taskName, { type: ['object', 'null'] });
  return (raw: unknown) => {
    check(raw);
    return {};
  };
}

/**
 * A cron task that deletes what is no longer needed a bounded batch at a time, so that one run
 * never holds long locks, until a batch finds nothing left.
 */
export function cleanupTask(
  taskName: string,
  deleteBatch: (db: Pool, services: WorkerServices) => Promise<number>,
  deletedWhat: string,
): TaskDefinition<Record<string, never>> {
  return defineTask({
    name: taskName,
    parse: noPayload(taskName),
    async run(_payload, services) {
      const { db, log } = services;
      let deleted = 0;
      for (let batch = await deleteBatch(db, services); batch > 0; batch = await deleteBatch(db, services)) deleted += batch;
      if (deleted > 0) log.info({ deleted }, `${deletedWhat} deleted`);
    },
  });
}
