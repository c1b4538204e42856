import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import {
  CACHE_KEYS_CHANNEL,
  CacheKeyFilter,
  GenerationalBloomFilter,
  KEYS_PER_NOTIFICATION,
  LISTENER_APPLICATION_NAME,
  bloomGeometry,
  decodeKeys,
  encodeKeys,
  type CacheKeyFilterOptions,
} from '../../src/gateway/cacheKeyFilter.js';
import { createTestDatabase, databaseUrl, waitFor, type TestDatabase } from '../helpers/db.js';
import { capturedLogger } from '../helpers/logs.js';

const randomKey = () => randomBytes(32);
const keyOf = (text: string) => createHash('sha256').update(text).digest();

describe('cache key notifications', () => {
  it('encode keys as comma-separated base64, at most 100 to a payload well under 7,000 bytes', () => {
    const keys = Array.from({ length: 250 }, randomKey);
    const payloads = encodeKeys(keys);
    expect(payloads).to.have.length(3);
    for (const payload of payloads) expect(Buffer.byteLength(payload)).to.be.below(7000);
    expect(payloads[0]!.split(',')).to.have.length(KEYS_PER_NOTIFICATION);
    expect(payloads[0]!.split(',')[0]).to.equal(keys[0]!.toString('base64'));
    expect(payloads.flatMap((p) => decodeKeys(p)!)).to.deep.equal(keys);
    expect(encodeKeys([])).to.deep.equal([]);
    expect(() => encodeKeys([Buffer.alloc(16)])).to.throw(RangeError);
  });

  it('decode base64url and whitespace, and refuse anything that is not a whole key', () => {
    const [a, b] = [randomKey(), randomKey()];
    expect(decodeKeys(` ${a.toString('base64')},\n${b.toString('base64url')}\n`)).to.deep.equal([a, b]);
    expect(decodeKeys('')).to.deep.equal([]);
    for (const bad of ['garbage', `${a.toString('base64')},`, a.toString('base64').slice(0, 40), randomBytes(33).toString('base64'), `${a.toString('base64')};x`]) {
      expect(decodeKeys(bad), bad).to.equal(undefined);
    }
  });
});

describe('GenerationalBloomFilter', () => {
  let clock = 0;
  const filter = (options: Partial<ConstructorParameters<typeof GenerationalBloomFilter>[0]> = {}) =>
    new GenerationalBloomFilter({
      keysPerGeneration: 100,
      falsePositiveRate: 0.01,
      retainMs: 1_060,
      rotateAfterMs: 250,
      maxGenerations: 64,
      now: () => clock,
      ...options,
    });
  beforeEach(() => {
    clock = 0;
  });

  it('is sized by the usual formulas (and at the defaults, ~1.2 MB per generation)', () => {
    expect(bloomGeometry(1_000_000, 0.01)).to.deep.equal({ bits: 9_585_088, hashes: 7, bytes: 1_198_136 });
    expect(bloomGeometry(100, 0.01)).to.deep.equal({ bits: 960, hashes: 7, bytes: 120 });
    expect(() => bloomGeometry(0, 0.01)).to.throw(RangeError);
    expect(() => bloomGeometry(10, 1)).to.throw(RangeError);
  });

  it('holds every key it was given, and few others', () => {
    const bloom = filter({ keysPerGeneration: 1000 });
    const keys = Array.from({ length: 1000 }, randomKey);
    for (const key of keys) bloom.add(key);
    expect(bloom.generationCount).to.equal(1);
    expect(keys.every((key) => bloom.mightContain(key))).to.equal(true);
    const falsePositives = Array.from({ length: 10_000 }, randomKey).filter((key) => bloom.mightContain(key)).length;
    expect(falsePositives / 10_000).to.be.below(0.025);
  });

  it('starts a generation when the current one is full or a quarter-TTL old, and drops those whose keys all expired', () => {
    // Keys of a fixed sequence: with random ones, 1 run in 50 found `first` by a false positive of
    // the generations left (each answers 1 % of keys it never held), and failed.
    let n = 0;
    const nextKey = () => createHash('sha256').update(`key ${n++}`).digest();
    const bloom = filter();
    const first = nextKey();
    bloom.add(first);
    clock = 100;
    bloom.add(nextKey());
    expect(bloom.generationCount).to.equal(1);
    clock = 250;
    bloom.add(nextKey());
    expect(bloom.generationCount).to.equal(2);
    for (let i = 0; i < 100; i++) bloom.add(nextKey());
    expect(bloom.generationCount).to.equal(3);

    // The first generation's newest key came at 100: kept until 100 + retainMs.
    clock = 1_160;
    expect(bloom.mightContain(first)).to.equal(true);
    expect(bloom.generationCount).to.equal(3);
    clock = 1_161;
    expect(bloom.mightContain(first)).to.equal(false);
    expect(bloom.generationCount).to.equal(2);

    // Idle: nothing new is started, and the rest go as they expire.
    clock = 100_000;
    expect(bloom.mightContain(first)).to.equal(false);
    expect(bloom.generationCount).to.equal(0);
    expect(bloom.byteLength).to.equal(0);
  });

  it('stays within maxGenerations under load it was not sized for, without losing a key', () => {
    const bloom = filter({ keysPerGeneration: 10, maxGenerations: 4 });
    const keys = Array.from({ length: 2000 }, randomKey);
    for (const key of keys) {
      bloom.add(key);
      expect(bloom.generationCount).to.be.at.most(4);
    }
    expect(bloom.byteLength).to.equal(4 * bloom.bytesPerGeneration);
    expect(keys.every((key) => bloom.mightContain(key))).to.equal(true);
    // The merged generation is saturated, which fails open; it goes once its keys have expired.
    clock = 2_000;
    bloom.add(randomKey());
    expect(bloom.generationCount).to.equal(1);
    expect(keys.filter((key) => bloom.mightContain(key)).length).to.be.below(100);
  });

  it('treats a key of the wrong length as possibly present', () => {
    const bloom = filter();
    bloom.add(Buffer.alloc(16));
    expect(bloom.generationCount).to.equal(0);
    expect(bloom.mightContain(Buffer.alloc(16))).to.equal(true);
    expect(bloom.mightContain(randomKey())).to.equal(false);
  });
});

describe('CacheKeyFilter', () => {
  let db: TestDatabase;
  let workspaces: string[];
  const filters: CacheKeyFilter[] = [];

  before(async () => {
    db = await createTestDatabase();
    const org = await db.pool.query<{ id: string }>("insert into organizations (name) values ('cache-keys') returning id");
    const rows = await db.pool.query<{ id: string }>(
      "insert into workspaces (organization_id, name) values ($1, 'a'), ($1, 'b') returning id",
      [org.rows[0]!.id],
    );
    workspaces = rows.rows.map((r) => r.id);
  });
  afterEach(async () => {
    await Promise.all(filters.splice(0).map((f) => f.close()));
    await db.pool.query('delete from response_cache');
  });
  after(async () => {
    await db.drop();
  });

  const newFilter = (options: Partial<CacheKeyFilterOptions> = {}) => {
    const logs = capturedLogger();
    const filter = new CacheKeyFilter({ connectionString: db.url, log: logs.log, ttlSeconds: 3600, reconnectDelayMs: 50, ...options });
    filters.push(filter);
    return { filter, logs };
  };

  const store = async (key: Buffer, { expiresInSeconds = 3600, workspace = workspaces[0]! } = {}) => {
    await db.pool.query(
      `insert into response_cache (workspace_id, cache_key, response, expires_at)
       values ($1, $2, '{}', now() + make_interval(secs => $3))`,
      [workspace, key, expiresInSeconds],
    );
  };

  const listenerConnections = async () => {
    const { rows } = await db.pool.query<{ n: number }>(
      'select count(*)::int as n from pg_stat_activity where application_name = $1 and datname = current_database()',
      [LISTENER_APPLICATION_NAME],
    );
    return rows[0]!.n;
  };

  it('might contain any key until it is in sync', async () => {
    const { filter } = newFilter();
    expect(filter.synced).to.equal(false);
    expect(filter.mightContain(randomKey())).to.equal(true);
    await filter.start();
    expect(filter.synced).to.equal(true);
    expect(filter.mightContain(randomKey())).to.equal(false);
  });

  it('loads every unexpired key, page by page, and few false positives', async function () {
    this.timeout(60_000);
    // 25,000 keys over two workspaces: three pages, one of them across the workspace boundary.
    await db.pool.query(
      `insert into response_cache (workspace_id, cache_key, response, expires_at)
       select ($1::uuid[])[1 + i % 2], sha256(convert_to('stored ' || i, 'UTF8')), '{}', now() + interval '1 hour'
         from generate_series(1, 25000) as i`,
      [workspaces],
    );
    const { filter, logs } = newFilter({ expectedKeysPerGeneration: 25_000 });
    await filter.start();
    expect(filter.synced).to.equal(true);
    const stored = Array.from({ length: 25_000 }, (_, i) => keyOf(`stored ${i + 1}`));
    expect(stored.filter((key) => !filter.mightContain(key))).to.have.length(0);
    const falsePositives = Array.from({ length: 10_000 }, randomKey).filter((key) => filter.mightContain(key)).length;
    expect(falsePositives / 10_000).to.be.below(0.025);
    expect(logs.lines().find((l) => l.msg === 'cache key filter in sync')).to.include({ keys: 25_000, generations: 1 });
  });

  it('does not load expired rows', async () => {
    const [live, expired] = [randomKey(), randomKey()];
    await store(live);
    await store(expired, { expiresInSeconds: -1 });
    const { filter } = newFilter();
    await filter.start();
    expect(filter.mightContain(live)).to.equal(true);
    expect(filter.mightContain(expired)).to.equal(false);
  });

  it('adds keys announced in the documented format by another connection', async () => {
    const { filter, logs } = newFilter();
    await filter.start();
    const keys = Array.from({ length: 150 }, randomKey);
    for (const key of keys) await store(key);
    for (const payload of encodeKeys(keys)) {
      await db.pool.query('select pg_notify($1, $2)', [CACHE_KEYS_CHANNEL, payload]);
    }
    await waitFor(async () => keys.every((key) => filter.mightContain(key)), { what: 'announced keys' });
    // Counts only: no key reaches the logs.
    expect(keys.some((key) => logs.text().includes(key.toString('base64')))).to.equal(false);
  });

  it('adds keys announced from SQL in the documented form', async () => {
    const { filter } = newFilter();
    await filter.start();
    const prefix = randomBytes(8).toString('hex');
    const { rows } = await db.pool.query<{ notices: number }>(
      `with cached as (
         insert into response_cache (workspace_id, cache_key, response, expires_at)
         select $1, sha256(convert_to($2 || i, 'UTF8')), '{}', now() + interval '1 hour'
           from generate_series(1, 250) as i
         returning cache_key
       ),
       cache_keys_told as (
         select pg_notify($3, string_agg(encode(k.cache_key, 'base64'), ','))
           from (select cache_key, (row_number() over ()) / 100 as chunk from cached) as k
          group by k.chunk
       )
       select (select count(*) from cache_keys_told)::int as notices`,
      [workspaces[0], prefix, CACHE_KEYS_CHANNEL],
    );
    expect(rows[0]!.notices).to.equal(3);
    const keys = Array.from({ length: 250 }, (_, i) => keyOf(`${prefix}${i + 1}`));
    await waitFor(async () => keys.every((key) => filter.mightContain(key)), { what: 'keys announced from SQL' });
    expect(filter.synced).to.equal(true);
  });

  it('holds a key this process added itself', async () => {
    const { filter } = newFilter();
    await filter.start();
    const key = randomKey();
    filter.add(key);
    expect(filter.mightContain(key)).to.equal(true);
  });

  it('resyncs by itself after losing its connection, picking up keys it was not told about', async () => {
    const { filter, logs } = newFilter({ reconnectDelayMs: 300 });
    await filter.start();
    const missed = randomKey();
    await db.pool.query('select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1 and datname = current_database()', [
      LISTENER_APPLICATION_NAME,
    ]);
    await waitFor(async () => !filter.synced, { intervalMs: 5, what: 'the filter to notice the lost connection' });
    expect(filter.mightContain(randomKey())).to.equal(true);
    // Stored while nobody listens, with no notification: only the reload can find it.
    await store(missed);
    await waitFor(async () => filter.synced, { what: 'resync' });
    expect(filter.mightContain(missed)).to.equal(true);
    expect(filter.mightContain(randomKey())).to.equal(false);
    expect(logs.lines().some((l) => l.level === 40 && l.msg === 'cache key filter lost its connection; resyncing')).to.equal(true);
    expect(await listenerConnections()).to.equal(1);
  });

  it('resyncs when a notification cannot be read, since it may have held keys', async () => {
    const { filter, logs } = newFilter();
    await filter.start();
    await db.pool.query('select pg_notify($1, $2)', [CACHE_KEYS_CHANNEL, 'not a key']);
    await waitFor(async () => logs.lines().some((l) => l.msg === 'cache key filter missed keys; resyncing'), { what: 'the warning' });
    await waitFor(async () => filter.synced, { what: 'resync' });
    expect(logs.lines().filter((l) => l.msg === 'cache key filter in sync')).to.have.length(2);
  });

  it('never throws from start(): it warns and keeps retrying until closed', async () => {
    const { filter, logs } = newFilter({ connectionString: databaseUrl('polder_no_such_database'), reconnectDelayMs: 10 });
    await filter.start();
    expect(filter.synced).to.equal(false);
    expect(filter.mightContain(randomKey())).to.equal(true);
    const warnings = () => logs.lines().filter((l) => l.msg === 'cache key filter could not sync; retrying').length;
    await waitFor(async () => warnings() >= 3, { what: 'retries' });
    await filter.close();
    const afterClose = warnings();
    // An absence can only be watched over a window: ten retry delays.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(warnings()).to.equal(afterClose);
  });

  it('closes cleanly, more than once, and also mid-connect', async () => {
    const { filter } = newFilter();
    await filter.start();
    expect(await listenerConnections()).to.equal(1);
    await filter.close();
    await filter.close();
    expect(filter.synced).to.equal(false);
    expect(filter.mightContain(randomKey())).to.equal(true);
    expect(filter.byteLength).to.equal(0);
    await waitFor(async () => (await listenerConnections()) === 0, { what: 'the listener to disconnect' });

    const { filter: early } = newFilter();
    const starting = early.start();
    await early.close();
    await starting;
    expect(early.synced).to.equal(false);
    await early.start();
    expect(early.synced).to.equal(false);
    await waitFor(async () => (await listenerConnections()) === 0, { what: 'the early listener to disconnect' });
  });
});
