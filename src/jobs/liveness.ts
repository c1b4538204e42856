import { EventEmitter } from 'node:events';
import { hostname } from 'node:os';
import type { WorkerEvents, WorkerPool } from 'graphile-worker';
import type { Pool } from '../db/pool.js';
import type { Logger } from '../logger.js';

// Frees the jobs of a worker process that died without shutting down (SIGKILL, OOM kill, a lost
// machine).
//
// graphile-worker locks a job by writing its pool's id (WorkerPool.id, "pool-<hex>") into
// jobs.locked_by and locked_at. A pool that stops cleanly unlocks its jobs; a pool that dies
// leaves them locked, and graphile-worker only takes a locked job again once locked_at is 4 hours
// old. A document whose ingest was running would stay `processing` all that time.
//
// So every worker process records each of its pools in worker_heartbeats and refreshes the row
// every few seconds (BEAT_MS). Every worker process also sweeps, at start and every SWEEP_MS: it
// deletes the rows older than STALE_MS and calls graphile_worker.force_unlock_workers() with
// their pool ids, in one transaction. The delete makes concurrent sweepers free each dead pool
// once. Freed jobs are runnable at once (their run_at is unchanged), and the sweeper nudges its
// own pools so they look now rather than at their next poll. Clocks of different machines never
// meet: the row's time and the threshold are both the database's now().
//
// A job of a dead pool is run again within STALE_MS + SWEEP_MS (+ one beat) of the death, as soon
// as any worker runs. What this cannot free: jobs of a pool that never wrote its first heartbeat
// (the first beat is sent the moment the pool is created, so that is a window of one query), and
// jobs locked by a pool that does not take part (graphile-worker run by other code); those still
// wait for graphile-worker's 4 hours. A live worker whose event loop or database connection was
// blocked for longer than STALE_MS is taken for dead and its jobs may run twice; its next beat
// logs that. STALE_MS is several beats long so that one slow beat is not taken for a death.

export interface LivenessOptions {
  beatMs?: number;
  staleMs?: number;
  sweepMs?: number;
}

export const BEAT_MS = 3_000;
export const STALE_MS = 15_000;
export const SWEEP_MS = 5_000;

export class WorkerLiveness {
  /** Pass to graphile-worker's run({ events }): the pools announce themselves on it. */
  readonly events: WorkerEvents = new EventEmitter() as WorkerEvents;
  private readonly pools = new Map<string, WorkerPool>();
  /** Pools that have written a row at least once; a later insert means the row was swept. */
  private readonly beaten = new Set<string>();
  /** Pools that stopped, whose heartbeat and locks are still to be removed. */
  private readonly released = new Set<string>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly beatMs: number;
  private readonly staleMs: number;
  private readonly sweepMs: number;
  private stopped = false;

  constructor(
    private readonly db: Pool,
    private readonly log: Logger,
    options: LivenessOptions = {},
  ) {
    this.beatMs = options.beatMs ?? BEAT_MS;
    this.staleMs = options.staleMs ?? STALE_MS;
    this.sweepMs = options.sweepMs ?? SWEEP_MS;
    this.watch(this.events);
  }

  /**
   * Events for one more runner of this process, whose pools this watches as well. Each runner
   * needs its own: a JobRunner reads the shutdown of any pool announced on its events as its own.
   */
  eventsForRunner(): WorkerEvents {
    return this.watch(new EventEmitter() as WorkerEvents);
  }

  private watch(events: WorkerEvents): WorkerEvents {
    events.on('pool:create', ({ workerPool }) => {
      this.pools.set(workerPool.id, workerPool);
      this.track(this.beat([workerPool.id]));
    });
    events.on('pool:release', ({ workerPool }) => this.abandon([workerPool.id]));
    return events;
  }

  /**
   * Pools that run nothing more: released, or given up on while stuck shutting down (JobRunner).
   * Their heartbeats stop, and the jobs they still lock are freed.
   */
  abandon(poolIds: string[]): void {
    for (const id of poolIds) {
      this.pools.delete(id);
      this.released.add(id);
    }
    this.track(this.forgetReleased());
  }

  /** Sweeps once now, then beats and sweeps on their intervals until stop(). */
  start(): this {
    this.track(this.sweep());
    this.timers.push(
      setInterval(() => {
        this.track(this.beat([...this.pools.keys()]));
        this.track(this.forgetReleased());
      }, this.beatMs),
      setInterval(() => this.track(this.sweep()), this.sweepMs),
    );
    for (const timer of this.timers) timer.unref();
    return this;
  }

  /** Stops the timers and waits for what is under way (call after the runner stopped). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearInterval(timer);
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  // Timer and event callbacks cannot await; their promises are kept here and awaited by stop().
  // Each one handles its own errors, so none can reject.
  private track(work: Promise<void>): void {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work));
  }

  private async beat(poolIds: string[]): Promise<void> {
    if (poolIds.length === 0 || this.stopped) return;
    try {
      const { rows } = await this.db.query<{ pool_id: string; inserted: boolean }>(
        `insert into worker_heartbeats (pool_id, hostname, pid)
         select unnest($1::text[]), $2, $3
         on conflict (pool_id) do update set beat_at = now()
         returning pool_id, (xmax = 0) as inserted`,
        [poolIds, hostname(), process.pid],
      );
      for (const row of rows) {
        if (row.inserted && this.beaten.has(row.pool_id)) {
          this.log.warn(
            { pool_id: row.pool_id },
            'this worker missed its heartbeats long enough to be taken for dead; jobs it was running may have been run again',
          );
        }
        this.beaten.add(row.pool_id);
      }
    } catch (err) {
      this.log.warn({ err }, 'worker heartbeat failed');
    }
  }

  // A pool that stopped runs nothing more, yet may still hold locks: when graphile-worker cannot
  // record a job's outcome (the database is away) it shuts the pool down with that job still locked
  // by it. Without its heartbeat no sweep would free it, so it is freed here, with the heartbeat. While
  // the database is away this is tried again with every beat, so the jobs run again within a beat
  // of its return (or, should this process die first, once the sweep finds the heartbeat stale).
  private async forgetReleased(): Promise<void> {
    const poolIds = [...this.released];
    if (poolIds.length === 0) return;
    try {
      await this.db.query(
        `with forgotten as (delete from worker_heartbeats where pool_id = any($1::text[]))
         select graphile_worker.force_unlock_workers($1::text[])`,
        [poolIds],
      );
      for (const poolId of poolIds) this.released.delete(poolId);
    } catch (err) {
      this.log.warn({ err, pool_ids: poolIds }, 'could not remove the heartbeat of a stopped pool; trying again');
    }
  }

  /** Frees the jobs of every pool whose heartbeat is stale. */
  async sweep(): Promise<void> {
    if (this.stopped) return;
    try {
      const client = await this.db.connect();
      let dead: string[] = [];
      try {
        await client.query('begin');
        const { rows } = await client.query<{ pool_id: string }>(
          `delete from worker_heartbeats where beat_at < now() - $1 * interval '1 millisecond' returning pool_id`,
          [this.staleMs],
        );
        dead = rows.map((r) => r.pool_id);
        if (dead.length > 0) await client.query('select graphile_worker.force_unlock_workers($1::text[])', [dead]);
        await client.query('commit');
      } catch (err) {
        await client.query('rollback').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
      if (dead.length > 0) {
        this.log.warn({ pool_ids: dead }, 'released the jobs of worker pools whose heartbeat stopped');
        for (const pool of this.pools.values()) pool.nudge(Number.MAX_SAFE_INTEGER);
      }
    } catch (err) {
      this.log.warn({ err }, 'worker liveness sweep failed');
    }
  }
}
