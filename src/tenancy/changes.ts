import type { Queryable } from '../db/pool.js';
import { ChannelListener } from '../db/listener.js';
import type { ProcessPresence } from '../db/presence.js';
import type { Logger } from '../logger.js';

// Web processes cache what a request's principal carries (its key's scopes and limits, its
// workspace's routing settings, its organization's non-EU acceptance) and the limits of workspaces
// and organizations, for a few seconds (tenancy/keys.ts, limits/gate.ts). A change to any of them
// is announced with one NOTIFY, sent in the transaction that makes it (so it is heard only if it
// commits), and every web process drops what it cached at once. The caches' lifetimes stay as the
// fallback while a process's listener is down.
//
// The same channel carries the limit gates' recalls (limits/gate.ts): a web process that a budget
// would refuse while other processes hold leased credits unused asks them to give those back, and
// each answers when it has. One listening connection per process serves both.

export const CONFIG_CHANNEL = 'polder_config';

/** A credit counter as a recall names it: scope kind, scope id, counter, window start (ISO). */
export type RecalledCounter = [scopeKind: string, scopeId: string, counter: string, windowStart: string];

/** Web process `by` asks the holders `from` to give back what they hold unused of `counters`. */
export interface LeaseRecall {
  kind: 'lease_recall';
  recall: string;
  by: string;
  from: string[];
  counters: RecalledCounter[];
}

/** Holder `by` has given back what recall `recall` of process `to` asked for (perhaps nothing). */
export interface LeaseRecallAnswer {
  kind: 'lease_returned';
  recall: string;
  to: string;
  by: string;
}

export type ConfigChange =
  | { kind: 'key'; id: string }
  | { kind: 'workspace'; id: string }
  | { kind: 'organization'; id: string }
  | { kind: 'limits' }
  | LeaseRecall
  | LeaseRecallAnswer;

export async function announceChange(db: Queryable, change: ConfigChange): Promise<void> {
  await db.query('select pg_notify($1, $2)', [CONFIG_CHANNEL, JSON.stringify(change)]);
}

/** What a web process drops when it hears of a change. */
export interface ChangeTargets {
  forgetKey(keyId: string): void;
  forgetWorkspace(workspaceId: string): void;
  forgetOrganization(organizationId: string): void;
  forgetAllPrincipals(): void;
  forgetScopeLimits(): void;
  /** Another process asks for leased credits back (what is not addressed to this process is ignored there). */
  recallLeases(recall: LeaseRecall): void;
  leasesReturned(answer: LeaseRecallAnswer): void;
}

// Postgres takes payloads up to 8,000 bytes; a recall names a few counters and holders.
const MAX_PAYLOAD = 8000;
const MAX_LISTED = 64;

const isText = (value: unknown): value is string => typeof value === 'string' && value.length > 0 && value.length <= 100;
const isTextList = (value: unknown): value is string[] => Array.isArray(value) && value.length <= MAX_LISTED && value.every(isText);

function parseChange(payload: string): ConfigChange | undefined {
  if (payload.length > MAX_PAYLOAD) return undefined;
  try {
    const change = JSON.parse(payload) as Record<string, unknown>;
    if (change.kind === 'limits') return { kind: 'limits' };
    if ((change.kind === 'key' || change.kind === 'workspace' || change.kind === 'organization') && typeof change.id === 'string') {
      return { kind: change.kind, id: change.id };
    }
    const { recall, by } = change;
    if (change.kind === 'lease_recall' && isText(recall) && isText(by) && isTextList(change.from)) {
      const { counters } = change;
      if (Array.isArray(counters) && counters.length <= MAX_LISTED && counters.every((counter) => isTextList(counter) && counter.length === 4)) {
        return { kind: 'lease_recall', recall, by, from: change.from, counters: counters as RecalledCounter[] };
      }
    }
    if (change.kind === 'lease_returned' && isText(recall) && isText(by) && isText(change.to)) {
      return { kind: 'lease_returned', recall, by, to: change.to };
    }
  } catch {
    // Not ours, or garbled: below, everything is dropped instead.
  }
  return undefined;
}

/** Listens for announced changes and applies them to this process's caches. */
export class ChangeListener {
  private readonly listener: ChannelListener;

  constructor(options: { connectionString: string; log: Logger; presence?: ProcessPresence }, targets: ChangeTargets) {
    this.listener = new ChannelListener(
      { connectionString: options.connectionString, channel: CONFIG_CHANNEL, applicationName: 'polder-config-changes', reconnectDelayMs: 500 },
      {
        // Changes announced while nobody listened are lost: everything cached may be stale. The
        // connection lives as long as the process does: it carries the process's presence.
        listening: async (client) => {
          await options.presence?.hold(client);
          targets.forgetAllPrincipals();
          targets.forgetScopeLimits();
        },
        notified: (payload) => {
          const change = parseChange(payload);
          if (!change) {
            options.log.warn('unreadable configuration change notification; dropping every cached principal');
            targets.forgetAllPrincipals();
            targets.forgetScopeLimits();
          } else if (change.kind === 'key') targets.forgetKey(change.id);
          else if (change.kind === 'workspace') targets.forgetWorkspace(change.id);
          else if (change.kind === 'organization') targets.forgetOrganization(change.id);
          else if (change.kind === 'lease_recall') targets.recallLeases(change);
          else if (change.kind === 'lease_returned') targets.leasesReturned(change);
          else targets.forgetScopeLimits();
        },
        lost: (err, stage, retryInMs) => options.log.warn({ err, stage, retryInMs }, 'configuration change listener lost its connection'),
      },
    );
  }

  start(): Promise<void> {
    return this.listener.start();
  }

  close(): Promise<void> {
    return this.listener.close();
  }
}
