import pg from 'pg';
import type { Logger } from '../logger.js';
import { RecordsRefused } from '../errors.js';
import { CONNECT_TIMEOUT_MS, WEB_QUERY_TIMEOUT_MS } from '../db/pool.js';
import { serializeRecords, type RequestRecords, type SerializedRecords } from './records.js';
import { writeRecords } from './writeRecords.js';

interface Waiter {
  records: SerializedRecords;
  written: (error?: unknown) => void;
}

// Largest batch in one statement; the next leader takes the rest.
const MAX_BATCH = 500;

// SQLSTATE classes of a value a table refused: 22 data exception, 23 integrity constraint violation.
const refusedByTable = (err: unknown) => /^2[23]/.test(String((err as { code?: unknown } | null)?.code ?? ''));

/**
 * The group commit: the records of every request the web process answers are written here, before
 * the answer is sent. Requests that finish while a commit is in flight wait and share the next one,
 * so a durable commit (and its WAL flush) is paid once per batch, not once per request.
 *
 * It writes through its own connection, whose `synchronous_commit` is chosen here: `on` by default,
 * so an answered request's usage row survives a crash of Postgres itself. With `off`, a commit
 * returns once it is in the WAL buffer: a crash of this process still loses nothing acknowledged,
 * but a crash of Postgres could lose the newest batches (up to ~3 × wal_writer_delay, 600 ms):
 * answers already sent, never billed. bench/gateway measures both.
 */
export class GroupCommitter {
  private readonly queue: Waiter[] = [];
  private flushing: Promise<void> | undefined;
  private readonly pool: pg.Pool;
  private closing: Promise<void> | undefined;
  /** The process id of the Postgres backend it writes through, while connected (CacheKeyFilter's ownBackends). */
  readonly backends = new Set<number>();

  constructor(
    connectionString: string,
    private readonly options: { synchronousCommit?: 'on' | 'off'; log?: Logger } = {},
  ) {
    // One connection makes the largest batches. On the 2-core bench machine a second one (batches
    // in flight at once) made smaller batches and no more requests per second (bench/README.md).
    this.pool = new pg.Pool({
      connectionString,
      max: 1,
      // Kept open while the process lives: closed when idle (pg's default, after 10 s), it had to
      // connect again under load, and on a server with every slot taken (the process's own pool
      // holding some) it could not, and every answer failed for want of its records.
      idleTimeoutMillis: 0,
      // Bounded as web's own pool is (db/pool.ts): a database that freezes must not hold the
      // requests waiting for their records for as long as it is frozen (QA: 45 s, then a 200).
      // Given up on, the statement's connection closes (the server rolls it back) and they are
      // answered 503, as during an outage.
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      query_timeout: WEB_QUERY_TIMEOUT_MS,
      application_name: 'polder-records',
      options: `-c synchronous_commit=${options.synchronousCommit ?? 'on'}`,
    });
    this.pool.on('error', () => undefined);
    this.pool.on('connect', (client) => {
      const pid = (client as pg.PoolClient & { processID: number }).processID;
      this.backends.add(pid);
      client.once('end', () => this.backends.delete(pid));
    });
  }

  /**
   * Resolves once the records are committed. Rejects with RecordsRefused, before they join a batch,
   * when a table would refuse them; the other requests' records are written all the same.
   */
  async write(records: RequestRecords): Promise<void> {
    const serialized = serializeRecords(records);
    const written = new Promise<void>((resolve, reject) => {
      this.queue.push({ records: serialized, written: (error) => (error === undefined ? resolve() : reject(error)) });
    });
    this.startFlush();
    await written;
  }

  /** Waits for the batches in flight; safe to call more than once. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      while (this.flushing) await this.flushing;
      await this.pool.end();
    })();
    return this.closing;
  }

  /** Those who arrive while a batch commits share the next one, started when it is done. */
  private startFlush(): void {
    if (this.flushing || this.queue.length === 0) return;
    this.flushing = this.flushBatch(this.queue.splice(0, MAX_BATCH)).finally(() => {
      this.flushing = undefined;
      this.startFlush();
    });
  }

  /** Never rejects: each waiter hears its own outcome. */
  private async flushBatch(batch: Waiter[]): Promise<void> {
    try {
      await writeRecords(this.pool, batch.map((w) => w.records));
      for (const waiter of batch) waiter.written();
    } catch (err) {
      // The checks let nothing through that a table refuses, as far as they know; should one slip
      // by, it must not cost the rest of the batch their answers: each is written on its own.
      if (batch.length > 1 && refusedByTable(err)) {
        for (const waiter of batch) await this.flushBatch([waiter]);
        return;
      }
      const outcome = refusedByTable(err) ? new RecordsRefused('a value could not be stored') : (err ?? new Error('the records statement failed'));
      if (outcome !== err) this.options.log?.error({ err }, 'records refused by a table that the checks let through');
      for (const waiter of batch) waiter.written(outcome);
    }
  }
}
