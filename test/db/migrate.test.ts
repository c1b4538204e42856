import { expect } from 'chai';
import pg from 'pg';
import { createPool } from '../../src/db/pool.js';
import { appliedVersions, isFullyMigrated, listMigrations, migrate } from '../../src/db/migrate.js';
import { createTestDatabase, databaseUrl, type TestDatabase } from '../helpers/db.js';

async function schemaSnapshot(pool: pg.Pool): Promise<string> {
  const { rows } = await pool.query(
    `select table_schema, table_name, column_name, data_type
       from information_schema.columns
      where table_schema in ('public', 'graphile_worker')
      order by 1, 2, 3`,
  );
  return JSON.stringify(rows);
}

describe('db/migrate', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
  });
  after(async () => {
    await db.drop();
  });

  it('records every numbered file and installs pgvector and graphile-worker', async () => {
    const files = await listMigrations();
    expect(files.map((m) => m.version)).to.deep.equal(files.map((_, i) => i + 1));
    expect(await appliedVersions(db.pool)).to.deep.equal(files.map((m) => m.version));
    expect(await isFullyMigrated(db.pool)).to.equal(true);
    const { rows } = await db.pool.query("select extname from pg_extension where extname = 'vector'");
    expect(rows).to.have.length(1);
    const jobs = await db.pool.query("select to_regclass('graphile_worker.jobs') is not null as ok");
    expect(jobs.rows[0].ok).to.equal(true);
  });

  it('compresses request payloads with lz4 when the server has it', async () => {
    const { rows: settings } = await db.pool.query("select enumvals from pg_settings where name = 'default_toast_compression'");
    const expected = (settings[0].enumvals as string[]).includes('lz4') ? 'l' : '';
    const { rows } = await db.pool.query(
      `select attrelid::regclass::text || '.' || attname as column, attcompression as method
         from pg_attribute
        where (attrelid::regclass::text, attname) in (('traces', 'input'), ('traces', 'output'),
                                                      ('response_cache', 'response'), ('requests', 'response'))
        order by 1`,
    );
    expect(rows).to.have.length(4);
    for (const row of rows) expect(row.method, row.column).to.equal(expected);
  });

  it('changes nothing when run again', async () => {
    const before = await schemaSnapshot(db.pool);
    const applied = await migrate(db.pool);
    expect(applied).to.deep.equal([]);
    expect(await schemaSnapshot(db.pool)).to.equal(before);
  });

  it('survives two processes migrating an empty database at once', async () => {
    const name = `${db.name}_fresh`;
    const admin = createPool(databaseUrl('postgres'), 1);
    await admin.query(`create database ${name}`);
    const first = createPool(databaseUrl(name), 3);
    const second = createPool(databaseUrl(name), 3);
    try {
      expect(await isFullyMigrated(first)).to.equal(false);
      const [a, b] = await Promise.all([migrate(first), migrate(second)]);
      const files = await listMigrations();
      expect(a.length + b.length).to.equal(files.length);
      expect(await appliedVersions(first)).to.deep.equal(files.map((m) => m.version));
    } finally {
      await first.end();
      await second.end();
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    }
  });
});
