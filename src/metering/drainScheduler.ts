import { CoalescedRun } from '../coalescedRun.js';
import { ChannelListener } from '../db/listener.js';
import type { Pool } from '../db/pool.js';
import { addJob } from '../jobs.js';
import type { Logger } from '../logger.js';
import { DRAIN_JOB_KEY, SETTLEMENTS_CHANNEL } from './pendingSettlements.js';

/**
 * Runs in the worker process. Every web process notifies SETTLEMENTS_CHANNEL after its group
 * commits, at most once per 100 ms (CommitAnnouncer); this turns the notifications of all of them
 * into at most one settlements__drain job per window. The job key folds a request into the job
 * still waiting; when that job is already running, graphile-worker adds a new one, so a row
 * committed during a drain is not left behind.
 *
 * Notifications are lost while this process is down or reconnecting, so every (re)connection
 * enqueues a drain at once, and a cron job drains every minute whatever happened.
 */
export class SettlementDrainScheduler {
  private readonly listener: ChannelListener;
  private readonly drains: CoalescedRun;

  constructor(
    private readonly options: {
      connectionString: string;
      pool: Pool;
      log: Logger;
      /** How long notifications are gathered into one job. */
      windowMs?: number;
      reconnectDelayMs?: number;
    },
  ) {
    this.drains = new CoalescedRun(() => this.enqueue(), options.windowMs ?? 100);
    const reconnectDelayMs = options.reconnectDelayMs ?? 1_000;
    this.listener = new ChannelListener(
      { connectionString: options.connectionString, channel: SETTLEMENTS_CHANNEL, applicationName: 'polder-settlements-listener', reconnectDelayMs },
      {
        // Whatever was committed while nobody listened.
        listening: async () => this.drains.request(),
        notified: () => this.drains.request(),
        lost: (err) => options.log.warn({ err, retryInMs: reconnectDelayMs }, 'settlements listener lost its connection; reconnecting'),
      },
    );
  }

  async start(): Promise<void> {
    await this.listener.start();
  }

  async stop(): Promise<void> {
    await this.drains.close();
    await this.listener.close();
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
