import { randomInt } from 'node:crypto';
import type pg from 'pg';

// A web process's presence in Postgres: a session advisory lock, held on the connection that
// listens for configuration changes for as long as the process lives. Postgres drops it the moment
// that connection closes, which a killed process's does at once. Other processes read pg_locks to
// tell a request id held by a live process (409, still running) from one whose process died (its
// retry runs anew; metering/requestIds.ts).

/** The first key of every presence lock (pg_advisory_lock(class, key)); sql/0039's polder_presence_held reads it. */
export const PRESENCE_LOCK_CLASS = 72_011_007;

export class ProcessPresence {
  /** This process's key: positive, so that it reads the same as pg_locks' objid. */
  readonly key = randomInt(1, 2 ** 31 - 1);

  /**
   * Takes the lock on `client`'s session (again after a reconnection). Should another process hold
   * the same key (one chance in two billion), its life vouches for this one's claims too: a retry
   * then waits for the prune, as without a presence.
   */
  async hold(client: pg.Client): Promise<void> {
    await client.query('select pg_try_advisory_lock($1, $2)', [PRESENCE_LOCK_CLASS, this.key]);
  }
}
