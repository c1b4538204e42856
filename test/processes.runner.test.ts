import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { fromRoot } from '../src/paths.js';
import { createTestDatabase, waitFor, type TestDatabase } from './helpers/db.js';
import { descendants, exited, freePort, isAlive, runScript, startProcess, startRunner } from './helpers/processes.js';

// npm start's last steps as a person meets them: the check before anything starts
// (src/cli/check.js) and the runner of web and worker (scripts/run-processes.sh).
describe("npm start's check and process runner", function () {
  this.timeout(60_000);
  let db: TestDatabase;
  const scratch = mkdtempSync(join(tmpdir(), 'polder-runner-'));
  const brokenCatalog = join(scratch, 'broken.yaml');
  writeFileSync(
    brokenCatalog,
    'providers:\n  - {id: p, region: mars, kind: openai, base_url: "http://x"}\nmodels: []\nservices: {firewall_per_1k_tokens: 0, retrieval_per_call: 0, ingest_per_chunk: 0}\n',
  );
  const started: ChildProcess[] = [];
  const pids: number[] = [];

  before(async () => {
    db = await createTestDatabase();
  });
  afterEach(async () => {
    for (const child of started.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) {
        for (const p of await descendants(child.pid!)) pids.push(p.pid);
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
    for (const pid of pids.splice(0)) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  });
  after(async () => {
    rmSync(scratch, { recursive: true, force: true });
    await db.drop();
  });

  const nodeProcesses = async (child: ChildProcess) =>
    (await descendants(child.pid!)).filter((p) => /node .*dist\/src\/(server|worker)\.js/.test(p.command)).map((p) => p.pid);

  describe('the check (src/cli/check.js)', () => {
    const check = (env: NodeJS.ProcessEnv) => runScript('src/cli/check.js', [], { DATABASE_URL: db.url, ...env });

    it('passes a good environment and the bundled catalogue, silently', async () => {
      const result = await check({ PORT: String(await freePort()) });
      expect(result.code, result.stderr).to.equal(0);
      expect(result.stdout + result.stderr).to.equal('');
    });

    it('stops on a broken catalogue with one plain line naming the bad field, no stack', async () => {
      const result = await check({ CATALOG_FILE: brokenCatalog });
      expect(result.code).to.equal(78);
      expect(result.stderr).to.match(/^polder: cannot start: catalog .*broken\.yaml is invalid: .*providers\.0 \(p\)\.region|^polder: cannot start: catalog .*broken\.yaml is invalid: .*providers\.0\.region/);
      expect(result.stderr.trim().split('\n')).to.have.length(1);
      expect(result.stdout).to.equal('');
    });

    it('stops on a bad environment variable with one plain line', async () => {
      for (const [name, value, message] of [
        ['PORT', 'abc', 'PORT must be a positive integer, got "abc"'],
        ['LOG_LEVEL', 'x', 'LOG_LEVEL must be one of'],
      ] as const) {
        const result = await check({ [name]: value });
        expect(result.code, name).to.equal(78);
        expect(result.stderr, name).to.contain(`polder: cannot start: ${message}`);
        expect(result.stderr.trim().split('\n'), name).to.have.length(1);
      }
    });
  });

  describe('a second npm start on the same port', () => {
    it('stops at once, saying a Polder web already listens there', async () => {
      const port = await freePort();
      const web = startProcess('src/server.js', { DATABASE_URL: db.url, PORT: String(port) });
      started.push(web.child);
      await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined))?.status === 200, {
        timeoutMs: 15_000,
        what: `the first web\n${web.output()}`,
      });
      const result = await runScript('src/cli/check.js', [], { DATABASE_URL: db.url, PORT: String(port) });
      expect(result.code).to.equal(78);
      expect(result.stderr).to.equal(
        `polder: cannot start: a Polder web is already listening on port ${port} (another npm start?); stop it, or set PORT to a free port\n`,
      );
      web.child.kill('SIGTERM');
      expect(await exited(web.child)).to.equal(0);
    });

    it('names a port another program holds', async () => {
      const taken = createServer();
      await new Promise<void>((resolve) => taken.listen(0, resolve));
      try {
        const port = (taken.address() as AddressInfo).port;
        const result = await runScript('src/cli/check.js', [], { DATABASE_URL: db.url, PORT: String(port) });
        expect(result.code).to.equal(78);
        expect(result.stderr).to.contain(`polder: cannot start: port ${port} (PORT) is already in use by another program`);
      } finally {
        taken.close();
      }
    });
  });

  describe('the runner (scripts/run-processes.sh)', () => {
    it('stops both processes and exits 78 when one cannot start as configured, instead of restarting it', async () => {
      const runner = startRunner({ DATABASE_URL: db.url, PORT: String(await freePort()), CATALOG_FILE: brokenCatalog });
      started.push(runner.child);
      const seen = new Set<number>();
      const code = await Promise.race([
        exited(runner.child),
        new Promise<string>((resolve) => setTimeout(() => resolve('still running after 15 s'), 15_000)),
      ]);
      for (const pid of await nodeProcesses(runner.child).catch(() => [])) seen.add(pid);
      expect(code, runner.output()).to.equal(78);
      expect(runner.output()).to.contain('polder: cannot start: catalog');
      expect(runner.output()).to.match(/(web|worker) cannot start as configured/);
      expect(runner.output()).not.to.contain('starting it again');
      for (const pid of seen) expect(isAlive(pid)).to.equal(false);
      await waitFor(async () => !/node .*dist\/src\/(server|worker)\.js/.test(JSON.stringify(await descendants(process.pid))) || undefined, {
        timeoutMs: 5_000,
        what: 'web and worker to be gone',
      });
    });

    it('stops web and worker, each cleanly, when npm start gets a SIGTERM (npm → sh -c → bash)', async () => {
      // npm start's chain, in a package of its own whose start script is ours (exec bash …) with
      // the set-up steps left out: npm runs it under sh -c, and sends its SIGTERM to that shell.
      const ours = (JSON.parse(readFileSync(fromRoot('package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
      expect(ours).to.equal('exec bash scripts/start.sh');
      const pkg = mkdtempSync(join(tmpdir(), 'polder-npm-'));
      writeFileSync(
        join(pkg, 'package.json'),
        JSON.stringify({ name: 'runner-under-npm', version: '0.0.0', private: true, scripts: { start: ours.replace('scripts/start.sh', fromRoot('scripts/run-processes.sh')) } }),
      );
      const port = await freePort();
      const npm = startRunner(
        { DATABASE_URL: db.url, PORT: String(port), LOG_LEVEL: 'info', npm_config_update_notifier: 'false', npm_config_fund: 'false' },
        { file: 'npm', args: ['start', '--silent'], cwd: pkg },
      );
      started.push(npm.child);
      await waitFor(
        async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200 && npm.output().includes('worker running'),
        { timeoutMs: 20_000, what: `web and worker to start under npm\n${npm.output()}` },
      );
      const tree = await descendants(npm.child.pid!);
      const running = tree.filter((p) => /node .*dist\/src\/(server|worker)\.js|run-processes\.sh/.test(p.command)).map((p) => p.pid);
      pids.push(...running);
      expect(running.length).to.be.at.least(4); // the runner, two supervisors, web, worker (less any not yet listed)

      process.kill(npm.child.pid!, 'SIGTERM');
      await waitFor(async () => running.every((pid) => !isAlive(pid)) || undefined, {
        timeoutMs: 15_000,
        what: `web, worker and the runner to stop after npm's SIGTERM\n${npm.output()}`,
      });
      expect(npm.output()).to.contain('web stopped');
      expect(npm.output()).to.contain('worker stopped');
      expect(npm.output()).not.to.contain('did not stop cleanly');
      rmSync(pkg, { recursive: true, force: true });
    });
  });
});
