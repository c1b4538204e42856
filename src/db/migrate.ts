import { readdir, readFile } from 'node:fs/promises';
import { Logger as WorkerLogger, runMigrations as runWorkerMigrations } from 'graphile-worker';
import { fromRoot } from '../paths.js';
import type { Pool, Queryable } from './pool.js';

export interface Migration {
  version: number;
  name: string;
  file: string;
}

const MIGRATION_FILE = /^(\d{4})_([a-z0-9_]+)\.sql$/;
// Any constant works; it only has to be the same in every process that migrates.
const MIGRATION_LOCK_KEY = 72_011_001;

export async function listMigrations(dir = fromRoot('sql')): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
  const migrations: Migration[] = [];
  for (const file of files) {
    const match = MIGRATION_FILE.exec(file);
    if (!match) throw new Error(`sql/${file}: migration files are named NNNN_what.sql`);
    const version = Number(match[1]);
    const expected = migrations.length + 1;
    if (version !== expected) throw new Error(`sql/${file}: expected migration number ${expected}`);
    migrations.push({ version, name: match[2]!, file: `${dir}/${file}` });
  }
  return migrations;
}

export async function appliedVersions(db: Queryable): Promise<number[]> {
  const exists = await db.query<{ exists: boolean }>(
    "select to_regclass('public.schema_migrations') is not null as exists",
  );
  if (!exists.rows[0]?.exists) return [];
  const { rows } = await db.query<{ version: number }>('select version from schema_migrations order by version');
  return rows.map((r) => r.version);
}

const silentWorkerLogger = new WorkerLogger(() => () => undefined);

/**
 * Applies pending migrations, each in its own transaction, then graphile-worker's schema.
 * A session advisory lock makes concurrent migrators wait for each other instead of racing.
 */
export async function migrate(
  pool: Pool,
  { dir, workerLogger = silentWorkerLogger }: { dir?: string; workerLogger?: WorkerLogger } = {},
): Promise<Migration[]> {
  const migrations = await listMigrations(dir);
  const client = await pool.connect();
  const applied: Migration[] = [];
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      await client.query(`create table if not exists schema_migrations (
        version integer primary key,
        name text not null,
        applied_at timestamptz not null default now()
      )`);
      const done = new Set(await appliedVersions(client));
      for (const migration of migrations) {
        if (done.has(migration.version)) continue;
        const sql = await readFile(migration.file, 'utf8');
        await client.query('begin');
        try {
          await client.query(sql);
          await client.query('insert into schema_migrations (version, name) values ($1, $2)', [
            migration.version,
            migration.name,
          ]);
          await client.query('commit');
        } catch (err) {
          await client.query('rollback');
          throw new Error(`migration ${migration.version}_${migration.name} failed: ${(err as Error).message}`);
        }
        applied.push(migration);
      }
      await runWorkerMigrations({ pgPool: pool, logger: workerLogger });
    } finally {
      await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    client.release();
  }
  return applied;
}

/** True when every migration file is recorded as applied (used by /readyz). */
export async function isFullyMigrated(db: Queryable): Promise<boolean> {
  const [files, applied] = await Promise.all([listMigrations(), appliedVersions(db)]);
  const done = new Set(applied);
  return files.every((m) => done.has(m.version));
}
