import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import pg from 'pg';
import { CacheKeyFilter, decodeKeys } from '../../src/gateway/cacheKeyFilter.js';
import { CACHE_KEYS_CHANNEL } from '../../src/gateway/responseCache.js';
import { auditEntry } from '../../src/jobs.js';
import { ANNOUNCE_INTERVAL_MS, CommitAnnouncer } from '../../src/metering/commitAnnouncer.js';
import { GroupCommitter } from '../../src/metering/groupCommit.js';
import { SETTLEMENTS_CHANNEL } from '../../src/metering/pendingSettlements.js';
import { createTestDatabase, waitFor, type TestDatabase } from '../helpers/db.js';
import { capturedLogger } from '../helpers/logs.js';

describe('CommitAnnouncer', () => {
  interface Sent {
    text: string;
    values: unknown[];
  }
  const recorder = () => {
    const sent: Sent[] = [];
    const errors: unknown[] = [];
    const database = { down: false };
    const notify = async (statement: Sent) => {
      if (database.down) throw new Error('connection lost');
      sent.push(statement);
    };
    return { sent, errors, database, notify, onError: (err: unknown) => errors.push(err) };
  };
  const keysOf = (statement: Sent) => (statement.values[2] as string[]).flatMap((payload) => decodeKeys(payload)!);

  it('gathers the commits of one interval into one announcement, every cache key in it', async () => {
    const { sent, notify, onError } = recorder();
    const announcer = new CommitAnnouncer(notify, onError, 20);
    const keys = Array.from({ length: 250 }, () => randomBytes(32));
    announcer.committed(keys.slice(0, 100));
    announcer.committed([]);
    announcer.committed(keys.slice(100));
    await waitFor(async () => sent.length > 0, { what: 'the announcement' });
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(sent).to.have.length(1);
    expect(sent[0]!.values.slice(0, 2)).to.deep.equal([SETTLEMENTS_CHANNEL, CACHE_KEYS_CHANNEL]);
    // 100 keys per notification at most: Postgres refuses payloads of 8,000 bytes.
    expect(sent[0]!.values[2]).to.have.length(3);
    expect(keysOf(sent[0]!)).to.deep.equal(keys);
    await announcer.flush();
  });

  it('says nothing while nothing was committed', async () => {
    const { sent, notify, onError } = recorder();
    const announcer = new CommitAnnouncer(notify, onError, 5);
    await new Promise((resolve) => setTimeout(resolve, 30));
    await announcer.flush();
    expect(sent).to.have.length(0);
  });

  it('keeps what it could not announce and sends it with the next attempt', async () => {
    const { sent, errors, database, notify, onError } = recorder();
    const announcer = new CommitAnnouncer(notify, onError, 5);
    database.down = true;
    const first = randomBytes(32);
    announcer.committed([first]);
    await waitFor(async () => errors.length >= 2, { what: 'two failed attempts' });
    const second = randomBytes(32);
    announcer.committed([second]);
    database.down = false;
    await waitFor(async () => sent.length === 1, { what: 'the announcement after the failures' });
    expect(keysOf(sent[0]!)).to.deep.equal([first, second]);
    await announcer.flush();
  });

  it('announces what is waiting when flushed, at once, and schedules nothing after', async () => {
    const { sent, notify, onError } = recorder();
    const announcer = new CommitAnnouncer(notify, onError, 5);
    const key = randomBytes(32);
    announcer.committed([key]);
    await announcer.flush();
    expect(sent).to.have.length(1);
    expect(keysOf(sent[0]!)).to.deep.equal([key]);
    announcer.committed([randomBytes(32)]);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(sent).to.have.length(1);
  });

  describe('through a group commit', () => {
    let db: TestDatabase;
    let ids: { workspace_id: string; organization_id: string };
    let listener: pg.Client;
    const heard: { channel: string; payload: string }[] = [];

    before(async () => {
      db = await createTestDatabase();
      const org = await db.pool.query<{ id: string }>("insert into organizations (name) values ('announcer') returning id");
      const ws = await db.pool.query<{ id: string }>("insert into workspaces (organization_id, name) values ($1, 'a') returning id", [org.rows[0]!.id]);
      ids = { workspace_id: ws.rows[0]!.id, organization_id: org.rows[0]!.id };
      listener = new pg.Client({ connectionString: db.url });
      await listener.connect();
      listener.on('notification', (n) => heard.push({ channel: n.channel, payload: n.payload ?? '' }));
      await listener.query(`listen ${SETTLEMENTS_CHANNEL}`);
      await listener.query(`listen ${CACHE_KEYS_CHANNEL}`);
    });
    after(async () => {
      await listener.end();
      await db.drop();
    });

    it("wakes the worker once for a burst of batches, and puts every stored key in another process's filter", async () => {
      // Another web process's filter, in sync before anything is stored: it can learn the keys only from the announcement.
      const other = new CacheKeyFilter({ connectionString: db.url, log: capturedLogger().log, ttlSeconds: 3600 });
      await other.start();
      const committer = new GroupCommitter(db.url);
      try {
        const keys = Array.from({ length: 40 }, () => randomBytes(32));
        const started = Date.now();
        for (const key of keys) {
          // One at a time: forty batches, forty commits.
          await committer.settle({
            workspaceId: ids.workspace_id,
            audit: auditEntry({ ...ids, actor: { key_id: null, kind: 'organization' }, action: 'chat.completion', target: 'r', details: {} }),
            cache: { workspace_id: ids.workspace_id, key, response: { completion: { id: 'c', created: 0, choices: [] }, model: 'm', provider: 'p' }, ttl_seconds: 60 },
          });
        }
        await waitFor(async () => keys.every((key) => other.mightContain(key)), { what: 'every key in the other filter' });
        await committer.close();
        const intervals = Math.ceil((Date.now() - started) / ANNOUNCE_INTERVAL_MS);
        // This connection hears the same notifications as the filter's, not necessarily as soon.
        const settledNotices = () => heard.filter((n) => n.channel === SETTLEMENTS_CHANNEL).length;
        await waitFor(async () => settledNotices() > 0, { what: 'the worker to be woken' });
        expect(settledNotices()).to.be.within(1, Math.min(intervals + 1, keys.length - 1));
      } finally {
        await committer.close();
        await other.close();
      }
    });
  });
});
