import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { createPool } from '../db/pool.js';
import { fromRoot } from '../paths.js';
import { configOrExit, databaseProblem } from '../process.js';
import { createKey, KeyResolver, type CreatedKey } from '../tenancy/keys.js';

// `npm start` prints a development key. It is kept in a git-ignored file and reused on restart,
// unless the database no longer knows it (a reset database gets a new one).
const file = fromRoot('.polder', 'dev-key.json');
const config = configOrExit();
const pool = createPool(config.databaseUrl, 2);

async function storedKey(): Promise<CreatedKey | undefined> {
  try {
    const stored = JSON.parse(await readFile(file, 'utf8')) as CreatedKey;
    return (await new KeyResolver(pool).resolve(stored.key)) ? stored : undefined;
  } catch {
    return undefined;
  }
}

try {
  let key = await storedKey();
  if (!key) {
    key = await createKey(pool, { organization: 'dev', workspace: 'default', kind: 'organization', by: 'npm start' });
    await mkdir(fromRoot('.polder'), { recursive: true });
    await writeFile(file, `${JSON.stringify(key, null, 2)}\n`, { mode: 0o600 });
    await chmod(file, 0o600);
  }
  process.stdout.write(
    `\n  Development key (organization "dev", workspace "default"; kept in .polder/dev-key.json):\n\n    ${key.key}\n\n` +
      `  Once web says "web listening", try: curl -s http://127.0.0.1:${config.port}/v1/models -H "Authorization: Bearer ${key.key}"\n` +
      `  (or export POLDER_KEY=$(jq -r .key .polder/dev-key.json) for the README's examples)\n\n`,
  );
} catch (err) {
  const problem = databaseProblem(err, config.databaseUrl);
  if (!problem) throw err;
  process.stderr.write(`polder: cannot make the development key: ${problem}\n`);
  process.exitCode = 1;
} finally {
  await pool.end();
}
