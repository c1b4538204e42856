// One undici Pool per provider origin, created on first use and kept: keep-alive connections
// are what keeps the gateway's own latency small (no TCP or TLS handshake per request).
import { Pool } from 'undici';

/**
 * Connections one web process keeps at most to one provider: a burst of long streams beyond it
 * waits for one to come free (within the provider's timeout_ms). 64 made 200 five-second streams
 * to one provider wait in batches, and time out.
 */
export const CONNECTIONS_PER_PROVIDER = 256;

export interface PoolSettings {
  /** Sockets per origin at most. */
  connections: number;
  /** Time allowed for TCP (and TLS) connection set-up. */
  connectTimeoutMs: number;
  /** How long an idle socket is kept (the server's keep-alive hint may shorten it). */
  keepAliveTimeoutMs: number;
  /** How long close() lets requests still running finish before it destroys their sockets. */
  closeGraceMs: number;
}

export class PoolRegistry {
  private readonly pools = new Map<string, Pool>();

  constructor(private readonly settings: PoolSettings) {}

  /** The pool for an origin such as `https://api.mistral.ai`; made on first use. */
  get(origin: string): Pool {
    let pool = this.pools.get(origin);
    if (!pool) {
      pool = new Pool(origin, {
        connections: this.settings.connections,
        // One request per socket at a time: a slow generation must not hold up the next one.
        pipelining: 1,
        connectTimeout: this.settings.connectTimeoutMs,
        keepAliveTimeout: this.settings.keepAliveTimeoutMs,
        // Per-request headersTimeout and bodyTimeout are set by the adapter from the provider.
      });
      this.pools.set(origin, pool);
    }
    return pool;
  }

  get size(): number {
    return this.pools.size;
  }

  /**
   * Closes every pool: requests still running get closeGraceMs to finish, then their sockets
   * are destroyed. A later get() makes a new pool.
   */
  async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((pool) => closePool(pool, this.settings.closeGraceMs)));
  }
}

async function closePool(pool: Pool, graceMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const graceful = pool.close().then(
    () => true,
    () => false,
  );
  const expired = new Promise<false>((resolve) => {
    timer = setTimeout(resolve, graceMs, false);
    timer.unref();
  });
  const closed = await Promise.race([graceful, expired]);
  clearTimeout(timer);
  if (!closed) await pool.destroy().catch(() => {});
}
