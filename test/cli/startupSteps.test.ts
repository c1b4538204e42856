import { expect } from 'chai';
import { databaseUrl } from '../helpers/db.js';
import { runScript } from '../helpers/processes.js';

// npm start's steps before web and worker (and the Procfile's release step), as a person meets
// them with a mistake in the environment: one plain line each, never a stack.
describe('cli: migrate and the development key with a bad environment', () => {
  const steps = ['src/cli/migrate.js', 'src/cli/devkey.js'];
  const noStack = (text: string) => expect(text).not.to.match(/^\s+at |ConfigError:|file:\/\//m);

  it('say which variable is wrong, in one line, and exit 78', async () => {
    for (const script of steps) {
      for (const [name, value, message] of [
        ['PORT', 'abc', 'PORT must be a positive integer, got "abc"'],
        ['LOG_LEVEL', 'x', 'LOG_LEVEL must be one of'],
        ['DATABASE_URL', 'garbage', 'DATABASE_URL must be a postgres:// URL'],
      ] as const) {
        const result = await runScript(script, [], { [name]: value });
        expect(result.code, `${script} ${name}`).to.equal(78);
        expect(result.stderr, `${script} ${name}`).to.match(new RegExp(`^polder: cannot start: ${message.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}.*\n$`));
        noStack(result.stderr);
        expect(result.stdout).to.equal('');
      }
    }
  });

  it('refuse METRICS_PORT equal to PORT up front, naming both (web would otherwise say its own port was taken)', async () => {
    const result = await runScript('src/cli/check.js', [], { PORT: '8123', METRICS_PORT: '8123' });
    expect(result.code).to.equal(78);
    expect(result.stderr).to.equal("polder: cannot start: METRICS_PORT must differ from PORT (8123): the worker's metrics and web cannot listen on one port\n");
  });

  it('refuse a WORKER_CONCURRENCY that would take every Postgres connection slot (QA: 100000 was taken)', async () => {
    const result = await runScript('src/cli/check.js', [], { WORKER_CONCURRENCY: '100000' });
    expect(result.code).to.equal(78);
    expect(result.stderr).to.equal(
      'polder: cannot start: WORKER_CONCURRENCY must be at most 48 (the worker holds about twice as many Postgres connections), got 100000\n',
    );
  });

  it('migrate names a database that does not exist, and how to create it', async () => {
    const name = `polder_missing_${process.pid}`;
    const result = await runScript('src/cli/migrate.js', [], { DATABASE_URL: databaseUrl(name) });
    expect(result.code).to.equal(1);
    expect(result.stderr).to.contain(`polder: migrate: database "${name}" does not exist`);
    expect(result.stderr).to.contain('npm run setup').and.contain(`createdb`).and.contain(name);
    noStack(result.stderr + result.stdout);
  });

  it('migrate and the development key say that the server takes no SSL when DATABASE_URL asks for it (it was a stack trace)', async () => {
    for (const script of steps) {
      const result = await runScript(script, [], { DATABASE_URL: `${databaseUrl('polder')}?sslmode=require` });
      expect(result.code, script).to.equal(1);
      expect(result.stderr, script).to.contain('does not take SSL connections').and.contain('remove sslmode from DATABASE_URL');
      noStack(result.stderr + result.stdout);
    }
  });

  it('the development key step names a server it cannot reach', async () => {
    const result = await runScript('src/cli/devkey.js', [], { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/polder' });
    expect(result.code).to.equal(1);
    expect(result.stderr).to.equal(
      'polder: cannot make the development key: cannot reach the PostgreSQL server of DATABASE_URL (127.0.0.1:1): ECONNREFUSED; is it running, and is DATABASE_URL right?\n',
    );
  });
});
