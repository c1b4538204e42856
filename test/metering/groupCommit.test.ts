import { randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { auditEntry } from '../../src/audit/entries.js';
import { loadConfig } from '../../src/config.js';
import { CacheKeyFilter } from '../../src/gateway/cacheKeyFilter.js';
import { GroupCommitter } from '../../src/metering/groupCommit.js';
import { RecordsRefused } from '../../src/errors.js';
import { serializeRecords, type RequestRecords } from '../../src/metering/records.js';
import { writeRecords } from '../../src/metering/writeRecords.js';
import { createKey } from '../../src/tenancy/keys.js';
import type { TraceRecord } from '../../src/traces/store.js';
import { createTestDatabase, waitFor, type TestDatabase } from '../helpers/db.js';
import { capturedLogger } from '../helpers/logs.js';

describe('metering/groupCommit', () => {
  let db: TestDatabase;
  let committer: GroupCommitter;
  let owner: { organization_id: string; workspace_id: string; key_id: string };
  before(async () => {
    db = await createTestDatabase();
    owner = await createKey(db.pool, { organization: 'acme', workspace: 'main', kind: 'organization' });
  });
  after(async () => {
    await db.drop();
  });
  beforeEach(() => {
    committer = new GroupCommitter(db.url, { log: capturedLogger().log });
  });
  afterEach(async () => {
    await committer.close();
  });

  const trace = (id: string): TraceRecord => ({
    workspace_id: owner.workspace_id,
    organization_id: owner.organization_id,
    id,
    kind: 'chat',
    key_id: owner.key_id,
    name: null,
    tags: ['t'],
    thread: null,
    end_user: null,
    application: null,
    trace_id: null,
    parent_span_id: null,
    model: 'local/echo',
    provider: 'local',
    attempts: [],
    status: 200,
    latency_ms: 1,
    prompt_tokens: 3,
    completion_tokens: 2,
    cached_tokens: 0,
    credits: { base: 0.001, services: 0, total: 0.001 },
    stream: false,
    cache: 'MISS',
    input: { messages: [] },
    output: [],
    notes: [],
    sources: [],
    firewall: null,
    created_at: new Date().toISOString(),
  });
  const records = (id: string): RequestRecords => ({
    usage: [
      {
        organization_id: owner.organization_id,
        workspace_id: owner.workspace_id,
        request_id: id,
        line: 0,
        kind: 'chat',
        model: 'local/echo',
        provider: 'local',
        prompt_tokens: 3,
        completion_tokens: 2,
        cached_tokens: 0,
        credits: { base: 0.001, services: 0, total: 0.001 },
        created_at: new Date().toISOString(),
      },
    ],
    trace: trace(id),
    audit: auditEntry({
      organization_id: owner.organization_id,
      workspace_id: owner.workspace_id,
      actor: { key_id: owner.key_id, kind: 'organization' },
      action: 'chat.completion',
      target: id,
      details: {},
    }),
  });
  const counts = async (ids: string[]) => {
    const { rows } = await db.pool.query(
      `select (select count(*)::int from usage where request_id = any($1)) as usage,
              (select count(*)::int from traces where id = any($1)) as traces,
              (select count(*)::int from audit_log where target = any($1)) as audit`,
      [ids],
    );
    return rows[0];
  };
  const outcomes = (writes: Promise<void>[]) => Promise.allSettled(writes);

  it('writes every record of a batch once, and no usage line or trace twice when the same records come again', async () => {
    const ids = Array.from({ length: 20 }, () => `gc-${randomUUID()}`);
    const written = ids.map(records);
    const settled = await outcomes(written.map((r) => committer.write(r)));
    expect(settled.every((s) => s.status === 'fulfilled')).to.equal(true);
    expect(await counts(ids)).to.deep.equal({ usage: 20, traces: 20, audit: 20 });
    const again = written.slice(0, 5).map(serializeRecords);
    await writeRecords(db.pool, [...again, ...again]);
    await writeRecords(db.pool, again);
    // An audit entry is an event: what wrote it again is on the record.
    expect(await counts(ids)).to.deep.equal({ usage: 20, traces: 20, audit: 20 + 15 });
  });

  it('refuses a request whose records a table would refuse, and writes the others of its batch', async () => {
    const good = Array.from({ length: 6 }, () => `gc-${randomUUID()}`);
    const negative = records(`gc-${randomUUID()}`);
    negative.usage![0]!.prompt_tokens = -5;
    const overLong = records('x'.repeat(300));
    const huge = records(`gc-${randomUUID()}`);
    huge.usage![0]!.completion_tokens = 3_000_000_000;
    const writes = [
      ...good.slice(0, 3).map((id) => committer.write(records(id))),
      committer.write(negative),
      committer.write(overLong),
      committer.write(huge),
      ...good.slice(3).map((id) => committer.write(records(id))),
    ];
    const settled = await outcomes(writes);
    expect(settled.map((s) => s.status)).to.deep.equal([
      'fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'rejected', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled',
    ]);
    const reasons = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason] : []));
    for (const reason of reasons) {
      expect(reason).to.be.instanceOf(RecordsRefused);
      expect(reason.status).to.equal(502);
    }
    expect(reasons[0].message).to.contain('usage.0.prompt_tokens');
    expect(reasons[1].message).to.contain('trace.id');
    expect(reasons[2].message).to.contain('usage.0.completion_tokens');
    expect(await counts(good)).to.deep.equal({ usage: 6, traces: 6, audit: 6 });
  });

  it('answers the rest of a batch when a table refuses a value the checks let through', async () => {
    const good = Array.from({ length: 5 }, () => `gc-${randomUUID()}`);
    const odd = records(`gc-${randomUUID()}`);
    // Not a list: the traces table's own check refuses it.
    (odd.trace as { attempts: unknown }).attempts = { first: 'eu-a' };
    const settled = await outcomes([...good.map((id) => committer.write(records(id))), committer.write(odd)]);
    expect(settled.slice(0, 5).every((s) => s.status === 'fulfilled')).to.equal(true);
    const refused = settled[5]!;
    expect(refused.status).to.equal('rejected');
    expect((refused as PromiseRejectedResult).reason).to.be.instanceOf(RecordsRefused);
    expect(await counts(good)).to.deep.equal({ usage: 5, traces: 5, audit: 5 });
    expect(await counts([odd.trace!.id])).to.deep.equal({ usage: 0, traces: 0, audit: 0 });
  });

  it('stores one cache entry for a batch of identical ones, and tells another process of it', async () => {
    const filter = new CacheKeyFilter({ connectionString: db.url, log: capturedLogger().log, ttlSeconds: 3600 });
    await filter.start();
    try {
      expect(filter.synced).to.equal(true);
      const key = randomBytes(32);
      expect(filter.mightContain(key)).to.equal(false);
      const ids = Array.from({ length: 32 }, () => `gc-${randomUUID()}`);
      const cache = { workspace_id: owner.workspace_id, key, response: { completion: { id: 'c', created: 1, choices: [] }, model: 'local/echo', provider: 'local' }, ttl_seconds: 60 };
      const settled = await outcomes(ids.map((id) => committer.write({ ...records(id), cache: cache as never })));
      expect(settled.every((s) => s.status === 'fulfilled')).to.equal(true);
      const { rows } = await db.pool.query('select count(*)::int as n from response_cache where cache_key = $1', [key]);
      expect(rows[0].n).to.equal(1);
      expect(await counts(ids)).to.deep.equal({ usage: 32, traces: 32, audit: 32 });
      await waitFor(async () => filter.mightContain(key), { what: "the other process's filter to hear of the key" });
    } finally {
      await filter.close();
    }
  });

  it("leaves its own process's filter to add its keys itself, unread", async () => {
    const log = capturedLogger().log;
    const other = new CacheKeyFilter({ connectionString: db.url, log, ttlSeconds: 3600 });
    const own = new CacheKeyFilter({ connectionString: db.url, log, ttlSeconds: 3600, ownBackends: committer.backends });
    await Promise.all([other.start(), own.start()]);
    try {
      const key = randomBytes(32);
      const cache = { workspace_id: owner.workspace_id, key, response: { completion: { id: 'c', created: 1, choices: [] }, model: 'local/echo', provider: 'local' }, ttl_seconds: 60 };
      await committer.write({ ...records(`gc-${randomUUID()}`), cache: cache as never });
      expect(committer.backends.size).to.equal(1);
      await waitFor(async () => other.mightContain(key), { what: 'the other filter to hear of the key' });
      // Notifications reach a listener in commit order: once `own` has this later one, it has read
      // (and skipped) the committer's.
      const later = randomBytes(32);
      await db.pool.query("select pg_notify('polder_cache_keys', $1)", [later.toString('base64')]);
      await waitFor(async () => own.mightContain(later), { what: 'the own filter to hear of a key from elsewhere' });
      expect(own.mightContain(key)).to.equal(false);
    } finally {
      await Promise.all([other.close(), own.close()]);
    }
  });

  it('commits durably unless METERING_SYNCHRONOUS_COMMIT is off', () => {
    expect(loadConfig({}).meteringSynchronousCommit).to.equal('on');
    expect(loadConfig({ METERING_SYNCHRONOUS_COMMIT: 'off' }).meteringSynchronousCommit).to.equal('off');
    expect(() => loadConfig({ METERING_SYNCHRONOUS_COMMIT: 'maybe' })).to.throw(/METERING_SYNCHRONOUS_COMMIT/);
  });
});
