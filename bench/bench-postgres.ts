// The Postgres of the benches: each bench creates a database of its own on the server of
// DATABASE_URL (or the default) and drops it afterwards, through the server's `postgres` database.
import pg from 'pg';
import { DEFAULT_DATABASE_URL } from '../src/config.js';

/** The URL of database `name` on the benches' server. */
export function benchDatabaseUrl(name: string): string {
  const url = new URL(process.env.DATABASE_URL || DEFAULT_DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Runs `work` on a client of the server's `postgres` database (create and drop database …). */
export async function withMaintenanceClient<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: benchDatabaseUrl('postgres') });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** One maintenance statement ("drop database if exists …"). */
export async function maintenanceQuery(sql: string): Promise<void> {
  await withMaintenanceClient((client) => client.query(sql));
}
