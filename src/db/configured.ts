import pg from 'pg';

// A database that does not exist, or that refuses the credentials, is a mistake in DATABASE_URL:
// retrying cannot mend it, so a process says so once and stops (EX_CONFIG), as a broken catalogue
// does. A server that cannot be reached at all is an outage, which the processes ride out.

const MISCONFIGURED: Readonly<Record<string, string>> = {
  '3D000': 'the database DATABASE_URL names does not exist; create it (npm start does, for a local server) or fix DATABASE_URL',
  '28P01': 'the database refused the password in DATABASE_URL',
  '28000': 'the database refused the user of DATABASE_URL (no pg_hba.conf entry, or no such role)',
};

/** Throws an Error saying what to fix when DATABASE_URL names no database we may use; returns otherwise. */
export async function checkDatabaseConfigured(connectionString: string): Promise<void> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && MISCONFIGURED[code] !== undefined) throw new Error(MISCONFIGURED[code]);
    return;
  } finally {
    await client.end().catch(() => undefined);
  }
}
