import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { ChannelListener } from '../db/listener.js';
import type { Logger } from '../logger.js';
import { CACHE_KEYS_CHANNEL, type CacheKeyLookup } from './responseCache.js';

// One definition: the records statement (metering/writeRecords.ts) notifies on the same constant.
export { CACHE_KEYS_CHANNEL };

/**
 * The notification format, written by `encodeKeys` (for the records statement) and read by `decodeKeys`:
 *
 *   each key as standard base64 with padding (44 characters for a 32-byte key), keys joined by
 *   ',', at most 100 keys per notification (4,499 bytes, well under Postgres' 8,000-byte limit).
 *
 * Another writer of response_cache can announce from SQL, over a set `stored(cache_key bytea)` of the
 * rows it wrote:
 *
 *   select pg_notify('polder_cache_keys', string_agg(encode(k.cache_key, 'base64'), ','))
 *     from (select cache_key, (row_number() over ()) / 100 as chunk from stored) as k
 *    group by k.chunk
 *
 * The reader also accepts base64url and ignores whitespace (Postgres' encode() breaks lines every
 * 76 characters, which a 32-byte key never reaches). A notification it cannot read in full makes
 * the filter resync, since a key it skipped would be a false negative.
 */
export const KEYS_PER_NOTIFICATION = 100;

const KEY_BYTES = 32;
// 43 significant characters carry 32 bytes; standard base64 pads to 44 with '='.
const ENCODED_KEY = /^[A-Za-z0-9+/_-]{43}=?$/;

export function encodeKeys(keys: Buffer[]): string[] {
  const payloads: string[] = [];
  for (let i = 0; i < keys.length; i += KEYS_PER_NOTIFICATION) {
    const chunk = keys.slice(i, i + KEYS_PER_NOTIFICATION);
    for (const key of chunk) {
      if (key.length !== KEY_BYTES) throw new RangeError(`cache keys are ${KEY_BYTES} bytes, not ${key.length}`);
    }
    payloads.push(chunk.map((key) => key.toString('base64')).join(','));
  }
  return payloads;
}

/** The keys in one notification, or undefined when any part of it is not a key. */
export function decodeKeys(payload: string): Buffer[] | undefined {
  const compact = payload.replace(/\s+/g, '');
  if (compact === '') return [];
  const keys: Buffer[] = [];
  for (const encoded of compact.split(',')) {
    if (!ENCODED_KEY.test(encoded)) return undefined;
    keys.push(Buffer.from(encoded, 'base64'));
  }
  return keys;
}

/** Size of one generation's Bloom filter for `keys` insertions at false-positive rate `rate`. */
export function bloomGeometry(keys: number, rate: number): { bits: number; hashes: number; bytes: number } {
  if (!Number.isInteger(keys) || keys < 1) throw new RangeError('expectedKeysPerGeneration must be a positive integer');
  if (!(rate > 0 && rate < 1)) throw new RangeError('falsePositiveRate must be between 0 and 1');
  const optimalBits = (-keys * Math.log(rate)) / Math.LN2 ** 2;
  const bits = Math.ceil(optimalBits / 32) * 32;
  // Bit positions are computed modulo `bits` from 32-bit words, and stored in 32-bit words.
  if (bits > 2 ** 32) throw new RangeError('a generation would need more than 2^32 bits; use more generations');
  return { bits, hashes: Math.max(1, Math.round((bits / keys) * Math.LN2)), bytes: bits / 8 };
}

class Generation {
  readonly words: Uint32Array;
  keys = 0;
  newestInsertAt: number;

  constructor(
    bits: number,
    readonly startedAt: number,
  ) {
    this.words = new Uint32Array(bits / 32);
    this.newestInsertAt = startedAt;
  }

  set(positions: Uint32Array, now: number): void {
    for (const position of positions) this.words[position >>> 5]! |= 1 << (position & 31);
    this.keys++;
    this.newestInsertAt = now;
  }

  hasAll(positions: Uint32Array): boolean {
    for (const position of positions) {
      if ((this.words[position >>> 5]! & (1 << (position & 31))) === 0) return false;
    }
    return true;
  }

  /** The union of two Bloom filters of one geometry is a Bloom filter of the union of their keys. */
  absorb(older: Generation): void {
    for (let i = 0; i < this.words.length; i++) this.words[i]! |= older.words[i]!;
    this.keys += older.keys;
    this.newestInsertAt = Math.max(this.newestInsertAt, older.newestInsertAt);
  }
}

export interface GenerationalBloomFilterOptions {
  keysPerGeneration: number;
  falsePositiveRate: number;
  /** A generation is dropped once its newest key is this old: every key in it has expired. */
  retainMs: number;
  /** A generation that holds keys stops taking new ones at this age, so it can be dropped sooner. */
  rotateAfterMs: number;
  maxGenerations: number;
  now: () => number;
}

/**
 * Bloom filters in generations, newest last. Memory stays within maxGenerations × bytesPerGeneration.
 *
 * When a new generation would exceed maxGenerations, the two oldest are merged (bitwise or) instead
 * of dropping the in-sync claim. A merge never loses a key, so the filter stays correct; only the
 * merged generation's false-positive rate rises, towards 100 % (a lookup for every key, as with no
 * filter) under load it was not sized for. That degrades only the part of the key space held by
 * old keys, needs no resync (a reload under the same load would fill up again at once), and heals
 * by itself: the merged generation is dropped once its newest key has expired.
 */
export class GenerationalBloomFilter {
  readonly bits: number;
  readonly hashes: number;
  readonly bytesPerGeneration: number;
  private generations: Generation[] = [];
  // Reused: one key's positions are the same in every generation.
  private readonly positions: Uint32Array;

  constructor(private readonly options: GenerationalBloomFilterOptions) {
    if (options.maxGenerations < 2) throw new RangeError('maxGenerations must be at least 2, to merge');
    const geometry = bloomGeometry(options.keysPerGeneration, options.falsePositiveRate);
    this.bits = geometry.bits;
    this.hashes = geometry.hashes;
    this.bytesPerGeneration = geometry.bytes;
    this.positions = new Uint32Array(geometry.hashes);
  }

  get generationCount(): number {
    return this.generations.length;
  }

  get byteLength(): number {
    return this.generations.length * this.bytesPerGeneration;
  }

  /** Keys of another length are never added, and mightContain is always true for them. */
  add(key: Buffer): void {
    if (key.length !== KEY_BYTES) return;
    const now = this.options.now();
    this.dropExpired(now);
    let current = this.generations.at(-1);
    if (!current || current.keys >= this.options.keysPerGeneration || now - current.startedAt >= this.options.rotateAfterMs) {
      current = this.startGeneration(now);
    }
    current.set(this.positionsOf(key), now);
  }

  mightContain(key: Buffer): boolean {
    if (key.length !== KEY_BYTES) return true;
    this.dropExpired(this.options.now());
    const positions = this.positionsOf(key);
    for (let i = this.generations.length - 1; i >= 0; i--) {
      if (this.generations[i]!.hasAll(positions)) return true;
    }
    return false;
  }

  clear(): void {
    this.generations = [];
  }

  private startGeneration(now: number): Generation {
    if (this.generations.length >= this.options.maxGenerations) {
      const [oldest, nextOldest] = this.generations;
      nextOldest!.absorb(oldest!);
      this.generations.shift();
    }
    const generation = new Generation(this.bits, now);
    this.generations.push(generation);
    return generation;
  }

  private dropExpired(now: number): void {
    while (this.generations.length > 0 && now - this.generations[0]!.newestInsertAt > this.options.retainMs) {
      this.generations.shift();
    }
  }

  // The key is a sha256 digest, so its words are already uniform: double hashing from the first
  // two (Kirsch–Mitzenmacher) gives k positions with the false-positive rate of k hash functions.
  private positionsOf(key: Buffer): Uint32Array {
    const first = key.readUInt32LE(0);
    const step = key.readUInt32LE(4);
    for (let i = 0; i < this.positions.length; i++) this.positions[i] = (first + i * step) % this.bits;
    return this.positions;
  }
}

export interface CacheKeyFilterOptions {
  connectionString: string;
  log: Logger;
  /** The longest TTL any writer gives a response_cache row; a shorter one here means false negatives. */
  ttlSeconds: number;
  expectedKeysPerGeneration?: number;
  /** Per generation: a miss is tested against each live generation, so overall ≈ generations × this. */
  falsePositiveRate?: number;
  reconnectDelayMs?: number;
  /** Milliseconds on a monotonic clock; tests pass a fake one. */
  now?: () => number;
  /**
   * The Postgres backends that store this process's own keys (the group commit's connection): it
   * adds those keys itself as it stores them, so their notifications are skipped unread.
   */
  ownBackends?: ReadonlySet<number>;
}

export const LISTENER_APPLICATION_NAME = 'polder-cache-keys';
const MAX_GENERATIONS = 64;
// Generation ages are measured on this process's monotonic clock, so its wall clock may jump: a
// row's expires_at is its transaction's start + TTL, which is before this process hears of the key
// (or loads it), so TTL after hearing is always late enough. The margin covers Postgres' own clock
// being stepped back, which would make rows outlive their TTL.
const CLOCK_SKEW_MARGIN_MS = 60_000;
// With a quarter of the TTL per generation, about six generations are alive at a time, and a key
// stays in the filter at most ~1.25 × TTL + margin.
const GENERATIONS_PER_TTL = 4;
const LOAD_PAGE_ROWS = 10_000;

// Keyset pages along the primary key, so each page is an index range scan, not a sort of the
// table. The first page starts after (nil uuid, empty bytea), below every real key (32 bytes).
const LOAD_PAGE_SQL = `
  select workspace_id, cache_key from response_cache
   where (workspace_id, cache_key) > ($1::uuid, $2::bytea) and expires_at > now()
   order by workspace_id, cache_key
   limit $3`;
const BEFORE_FIRST_KEY = ['00000000-0000-0000-0000-000000000000', Buffer.alloc(0)] as const;

/**
 * Answers "might this key be in response_cache?" without a round trip, so a cache miss costs none.
 *
 * It is in sync once it LISTENs for the keys the group commits announce and has then loaded
 * every unexpired key; listening first means a key stored during the load is announced, not lost.
 * While out of sync (before start, after a lost connection, after close) every key might be present.
 * Only the group commit writes response_cache, and its statement notifies every key as it commits;
 * another writer would have to notify too.
 */
export class CacheKeyFilter implements CacheKeyLookup {
  private readonly keys: GenerationalBloomFilter;
  private readonly log: Logger;
  private readonly listener: ChannelListener;
  private inSync = false;

  constructor(options: CacheKeyFilterOptions) {
    this.log = options.log;
    const ttlMs = options.ttlSeconds * 1000;
    this.keys = new GenerationalBloomFilter({
      keysPerGeneration: options.expectedKeysPerGeneration ?? 1_000_000,
      falsePositiveRate: options.falsePositiveRate ?? 0.01,
      retainMs: ttlMs + CLOCK_SKEW_MARGIN_MS,
      rotateAfterMs: ttlMs / GENERATIONS_PER_TTL,
      maxGenerations: MAX_GENERATIONS,
      now: options.now ?? (() => performance.now()),
    });
    const reconnectDelayMs = options.reconnectDelayMs ?? 1000;
    this.listener = new ChannelListener(
      { connectionString: options.connectionString, channel: CACHE_KEYS_CHANNEL, applicationName: LISTENER_APPLICATION_NAME, reconnectDelayMs },
      {
        listening: async (client) => {
          const loaded = await this.loadUnexpiredKeys(client);
          this.inSync = true;
          this.log.info({ keys: loaded, generations: this.keys.generationCount }, 'cache key filter in sync');
        },
        notified: (payload, sender) => {
          if (!options.ownBackends?.has(sender)) this.onNotification(payload);
        },
        lost: (err, stage) => {
          this.outOfSync();
          const message = stage === 'connected' ? 'cache key filter lost its connection; resyncing' : 'cache key filter could not sync; retrying';
          this.log.warn({ err, retryInMs: reconnectDelayMs }, message);
        },
      },
    );
  }

  get synced(): boolean {
    return this.inSync;
  }

  /** Bytes held by the live generations. */
  get byteLength(): number {
    return this.keys.byteLength;
  }

  /** Never throws: until it is in sync, every key might be present, and it keeps retrying. */
  async start(): Promise<void> {
    await this.listener.start();
  }

  mightContain(key: Buffer): boolean {
    return !this.inSync || this.keys.mightContain(key);
  }

  // Also while out of sync: a key added during the load is one the load may already have passed.
  add(key: Buffer): void {
    this.keys.add(key);
  }

  async close(): Promise<void> {
    this.outOfSync();
    await this.listener.close();
    this.keys.clear();
  }

  /** Keys announced from now on are missed until the next load brings back every live one. */
  private outOfSync(): void {
    this.inSync = false;
    this.keys.clear();
  }

  private async loadUnexpiredKeys(client: pg.Client): Promise<number> {
    let after: readonly [string, Buffer] = BEFORE_FIRST_KEY;
    let loaded = 0;
    for (;;) {
      const { rows } = await client.query<{ workspace_id: string; cache_key: Buffer }>({
        name: 'polder-cache-keys-page',
        text: LOAD_PAGE_SQL,
        values: [after[0], after[1], LOAD_PAGE_ROWS],
      });
      for (const row of rows) this.keys.add(row.cache_key);
      loaded += rows.length;
      const last = rows.at(-1);
      if (!last || rows.length < LOAD_PAGE_ROWS) return loaded;
      after = [last.workspace_id, last.cache_key];
    }
  }

  private onNotification(payload: string): void {
    const keys = decodeKeys(payload);
    if (!keys) {
      this.outOfSync();
      this.log.warn({ err: new Error('unreadable cache key notification') }, 'cache key filter missed keys; resyncing');
      this.listener.restart();
      return;
    }
    for (const key of keys) this.keys.add(key);
  }
}
