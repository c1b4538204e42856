import pg from 'pg';
import { backoffDelay } from './backoff.js';

export interface ChannelHandlers {
  /**
   * After LISTEN, on the first connection and on every reconnection: notifications sent while
   * nobody listened are lost, so this is where the owner catches up. It may query `client`;
   * throwing counts as a failed attempt.
   */
  listening(client: pg.Client): Promise<void>;
  /** `sender` is the process id of the Postgres backend that sent it. */
  notified(payload: string, sender: number): void;
  /** The connection failed or went away; another attempt follows in `retryInMs`. */
  lost(err: unknown, stage: 'connecting' | 'connected', retryInMs: number): void;
}

/**
 * One connection that LISTENs on a channel, outside any pool (a pooled connection would hand
 * the LISTEN to whoever takes it next), and comes back by itself after it is lost: the first
 * attempt after `reconnectDelayMs`, each further one after twice the pause before (up to
 * `maxReconnectDelayMs`), so every web process retrying against a database that is down or
 * recovering costs it little.
 */
export class ChannelListener {
  private client: pg.Client | undefined;
  private connected = false;
  private started = false;
  private closed = false;
  private retryTimer: NodeJS.Timeout | undefined;
  /** Attempts that failed since the last one that reached `listening`. */
  private failures = 0;
  private attempt: Promise<void> | undefined;
  private readonly ending = new Set<Promise<void>>();

  constructor(
    private readonly options: {
      connectionString: string;
      channel: string;
      applicationName: string;
      reconnectDelayMs: number;
      /** Default 10 s, or reconnectDelayMs when that is longer. */
      maxReconnectDelayMs?: number;
    },
    private readonly handlers: ChannelHandlers,
  ) {}

  /** Resolves after the first attempt, whether it succeeded or not; never throws. */
  async start(): Promise<void> {
    if (!this.closed && !this.started) {
      this.started = true;
      this.attempt = this.connect();
    }
    await this.attempt;
  }

  /** Drops the connection and connects anew after the delay, without calling `lost`. */
  restart(): void {
    if (this.client) this.drop(this.client);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const client = this.client;
    this.client = undefined;
    if (client) this.end(client);
    await this.attempt;
    await Promise.all(this.ending);
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.options.connectionString, application_name: this.options.applicationName });
    this.client = client;
    this.connected = false;
    client.on('notification', (message) => {
      if (this.client === client && message.channel === this.options.channel) this.handlers.notified(message.payload ?? '', message.processId);
    });
    // pg emits 'error' (which would throw unheard) and then 'end' when the server goes away.
    client.on('error', (err) => this.fail(client, err));
    client.on('end', () => this.fail(client, new Error('connection ended')));
    try {
      await connectUnlessEnded(client);
      await client.query(`listen ${this.options.channel}`);
      await this.handlers.listening(client);
      if (this.client === client) {
        this.connected = true;
        this.failures = 0;
      }
    } catch (err) {
      this.fail(client, err);
    }
  }

  private fail(client: pg.Client, err: unknown): void {
    if (this.client !== client) return;
    const stage = this.connected ? 'connected' : 'connecting';
    const retryInMs = this.drop(client);
    this.failures += 1;
    this.handlers.lost(err, stage, retryInMs);
  }

  /** Returns the pause before the next attempt. */
  private drop(client: pg.Client): number {
    this.client = undefined;
    this.end(client);
    const { reconnectDelayMs, maxReconnectDelayMs = Math.max(DEFAULT_MAX_RECONNECT_DELAY_MS, reconnectDelayMs) } = this.options;
    const delay = backoffDelay(this.failures, { initialMs: reconnectDelayMs, maxMs: maxReconnectDelayMs });
    if (this.closed) return delay;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      // close() awaits this.attempt, so an attempt is never left running.
      this.attempt = this.connect();
    }, delay);
    this.retryTimer.unref();
    return delay;
  }

  private end(client: pg.Client): void {
    const ended: Promise<void> = client
      .end()
      .catch(() => undefined)
      .finally(() => this.ending.delete(ended));
    this.ending.add(ended);
  }
}

const DEFAULT_MAX_RECONNECT_DELAY_MS = 10_000;

// pg never settles connect() when end() is called during the handshake (as close() may), but the
// client still emits 'end'.
function connectUnlessEnded(client: pg.Client): Promise<void> {
  return new Promise((resolve, reject) => {
    client.once('end', () => reject(new Error('connection ended while connecting')));
    client.connect().then(() => resolve(), reject);
  });
}
