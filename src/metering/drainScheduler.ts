import pg from 'pg';
import type { Pool } from '../db/pool.js';
import { addJob } from '../jobs.js';
import type { Logger } from '../logger.js';
import { SETTLEMENTS_CHANNEL } from './pendingSettlements.js';

const DRAIN_JOB_KEY = 'settlements__drain';

/**
 * Runs in the worker process. Every group commit notifies SETTLEMENTS_CHANNEL once it has
 * committed; this turns the stream of notifications into at most one settlements__drain job per
 * window. The job key folds a request into the job still waiting; when that job is already
 * running, graphile-worker adds a new one, so a row committed during a drain is not left behind.
 *
 * Notifications are lost while this process is down or reconnecting, so every (re)connection
 * enqueues a drain at once, and a cron job drains every minute whatever happened.
 */
export class SettlementDrainScheduler {
  private client: pg.Client | undefined;
  private timer: NodeJS.Timeout | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private enqueuing: Promise<void> | undefined;
  private connecting: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly options: {
      connectionString: string;
      pool: Pool;
      log: Logger;
      /** How long notifications are gathered into one job. */
      windowMs?: number;
      reconnectDelayMs?: number;
    },
  ) {}

  async start(): Promise<void> {
    this.connecting = this.connect();
    await this.connecting;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.reconnectTimer);
    await this.connecting;
    await this.enqueuing;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new pg.Client({ connectionString: this.options.connectionString, application_name: 'polder-settlements-listener' });
    client.on('notification', () => this.soon());
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client, undefined));
    try {
      await client.connect();
      await client.query(`listen ${SETTLEMENTS_CHANNEL}`);
    } catch (err) {
      this.lost(client, err);
      return;
    }
    if (this.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    // Whatever was committed while nobody listened.
    this.soon();
  }

  private lost(client: pg.Client, err: unknown): void {
    if (this.stopped || this.reconnectTimer) return;
    if (this.client === client) this.client = undefined;
    client.end().catch(() => undefined);
    this.options.log.warn({ err }, 'settlements listener lost its connection; reconnecting');
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      // connect() reports its own failures; stop() awaits it.
      this.connecting = this.connect();
    }, this.options.reconnectDelayMs ?? 1_000);
    this.reconnectTimer.unref();
  }

  private soon(): void {
    if (this.timer || this.stopped) return;
    this.timer = setTimeout(() => {
      this.enqueuing = this.enqueue().finally(() => {
        this.timer = undefined;
        this.enqueuing = undefined;
      });
    }, this.options.windowMs ?? 100);
  }

  private async enqueue(): Promise<void> {
    try {
      await addJob(this.options.pool, 'settlements__drain', {}, { jobKey: DRAIN_JOB_KEY });
    } catch (err) {
      // The next notification, the next reconnection or the minutely cron job tries again.
      this.options.log.warn({ err }, 'could not enqueue a settlements drain');
    }
  }
}
