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

export const CONFIG_CHANNEL = 'polder_config';

export type ConfigChange =
  | { kind: 'key'; id: string }
  | { kind: 'workspace'; id: string }
  | { kind: 'organization'; id: string }
  | { kind: 'limits' };

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
}

const MAX_PAYLOAD = 1000;

function parseChange(payload: string): ConfigChange | undefined {
  if (payload.length > MAX_PAYLOAD) return undefined;
  try {
    const change = JSON.parse(payload) as Partial<ConfigChange> & { id?: unknown };
    if (change.kind === 'limits') return { kind: 'limits' };
    if ((change.kind === 'key' || change.kind === 'workspace' || change.kind === 'organization') && typeof change.id === 'string') {
      return { kind: change.kind, id: change.id };
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
