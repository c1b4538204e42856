import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { DEFAULT_DATABASE_URL } from '../../src/config.js';
import { createPool, type Pool } from '../../src/db/pool.js';
import { migrate } from '../../src/db/migrate.js';
import { fromRoot } from '../../src/paths.js';

// Each test file gets its own database, cloned from a template that is migrated once per set of
// migration files (the template's name carries their hash, so a changed migration makes a new one).

export function databaseUrl(name: string): string {
  const url = new URL(process.env.DATABASE_URL || DEFAULT_DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

const maintenanceUrl = () => databaseUrl('postgres');

function templateName(): string {
  const hash = createHash('sha256');
  for (const file of readdirSync(fromRoot('sql')).sort()) {
    hash.update(file).update(readFileSync(fromRoot('sql', file)));
  }
  hash.update(JSON.parse(readFileSync(fromRoot('node_modules/graphile-worker/package.json'), 'utf8')).version);
  return `polder_tpl_${hash.digest('hex').slice(0, 16)}`;
}

async function withMaintenance<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: maintenanceUrl() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const ident = (name: string) => {
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`unsafe database name ${name}`);
  return `"${name}"`;
};

let templateReady: Promise<string> | undefined;

/** Creates the migrated template database once; concurrent test runs wait on an advisory lock. */
export function ensureTemplate(): Promise<string> {
  templateReady ??= withMaintenance(async (client) => {
    const name = templateName();
    await client.query('select pg_advisory_lock(72011002)');
    try {
      const exists = await client.query('select 1 from pg_database where datname = $1', [name]);
      if (exists.rowCount === 0) {
        const building = `${name}_building`;
        await client.query(`drop database if exists ${ident(building)}`);
        await client.query(`create database ${ident(building)}`);
        const pool = createPool(databaseUrl(building), 2);
        try {
          await migrate(pool);
        } finally {
          await pool.end();
        }
        await client.query(`alter database ${ident(building)} rename to ${ident(name)}`);
        await client.query(`alter database ${ident(name)} is_template true`);
      }
    } finally {
      await client.query('select pg_advisory_unlock(72011002)');
    }
    return name;
  });
  return templateReady;
}

export interface TestDatabase {
  name: string;
  url: string;
  pool: Pool;
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const template = await ensureTemplate();
  const name = `polder_test_${randomBytes(6).toString('hex')}`;
  await withMaintenance((client) => client.query(`create database ${ident(name)} template ${ident(template)}`));
  const url = databaseUrl(name);
  const pool = createPool(url, 10);
  return {
    name,
    url,
    pool,
    async drop() {
      await pool.end();
      await withMaintenance((client) => client.query(`drop database if exists ${ident(name)} with (force)`));
    },
  };
}

/** Polls `probe` until it returns a value other than undefined/false, or fails after the deadline. */
export async function waitFor<T>(
  probe: () => Promise<T | undefined | false>,
  { timeoutMs = 10_000, intervalMs = 25, what = 'condition' } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
