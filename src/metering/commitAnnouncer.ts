import { CoalescedRun } from '../coalescedRun.js';
import { encodeKeys } from '../gateway/cacheKeyFilter.js';
import { CACHE_KEYS_CHANNEL } from '../gateway/responseCache.js';
import { SETTLEMENTS_CHANNEL } from './pendingSettlements.js';

// Both notifications in one round trip. The keys' subquery runs because the select list reads it.
const ANNOUNCE_SQL = `
  select pg_notify($1, '') as settled,
         (select count(pg_notify($2, payload)) from unnest($3::text[]) as payload) as cache_notices`;

/** How long commits are gathered into one announcement. */
export const ANNOUNCE_INTERVAL_MS = 100;

/**
 * Tells the other processes, at most once per interval, what the group commits since the last
 * announcement left behind: the worker, that pending settlements wait for a drain; every web
 * process, which cache keys are new. A NOTIFY inside every commit cost each listener, in Postgres
 * and in Node, a wake-up (and in Postgres a transaction) per batch: at low concurrency, one per
 * request (bench/README.md). The drain and the cache filter need no more than this: the worker
 * gathers notifications into one job per 100 ms anyway, and the committing process adds its own
 * keys to its filter at once.
 *
 * A process that dies inside the interval leaves its last commits unannounced: the minutely cron
 * drain picks the settlements up, and the other web processes answer those keys with a MISS (and
 * store them again) until their next resync; never a wrong answer.
 */
export class CommitAnnouncer {
  private cacheKeys: Buffer[] = [];
  private settled = false;
  private readonly announcements: CoalescedRun;

  constructor(
    private readonly notify: (statement: { text: string; values: unknown[] }) => Promise<unknown>,
    private readonly onError: (err: unknown) => void,
    intervalMs = ANNOUNCE_INTERVAL_MS,
  ) {
    this.announcements = new CoalescedRun(() => this.announce(), intervalMs);
  }

  /** A batch committed: pending settlements for the worker, and the cache keys it stored. */
  committed(cacheKeys: Buffer[]): void {
    this.settled = true;
    this.cacheKeys.push(...cacheKeys);
    this.announcements.request();
  }

  /** On close: announces what is waiting now, once, and schedules nothing more. */
  async flush(): Promise<void> {
    await this.announcements.close();
    await this.announce();
  }

  /** Never rejects: what it could not announce is kept for the next attempt. */
  private async announce(): Promise<void> {
    if (!this.settled) return;
    const keys = this.cacheKeys;
    this.cacheKeys = [];
    this.settled = false;
    try {
      await this.notify({ text: ANNOUNCE_SQL, values: [SETTLEMENTS_CHANNEL, CACHE_KEYS_CHANNEL, encodeKeys(keys)] });
    } catch (err) {
      this.cacheKeys = [...keys, ...this.cacheKeys];
      this.settled = true;
      this.onError(err);
      this.announcements.request();
    }
  }
}
