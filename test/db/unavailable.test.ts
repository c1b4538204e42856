import { expect } from 'chai';
import { createPool } from '../../src/db/pool.js';
import { isDatabaseUnavailable } from '../../src/db/unavailable.js';
import { answerableError } from '../../src/errors.js';
import { createTestDatabase, waitFor, type TestDatabase } from '../helpers/db.js';
import { capturedLogger } from '../helpers/logs.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcpProxy.js';

// The errors a database outage produces, as the pool and the clients really report them, are told
// apart from the errors of a request; and reporting them writes nothing secret.
describe('database outage errors', function () {
  this.timeout(30_000);
  let db: TestDatabase;
  let proxy: TcpProxy;
  before(async () => {
    db = await createTestDatabase();
    const { hostname, port } = new URL(db.url);
    proxy = await startTcpProxy({ host: hostname, port: Number(port || 5432) });
  });
  afterEach(() => proxy.restore());
  after(async () => {
    await proxy.close();
    await db.drop();
  });

  const withPassword = () => {
    const url = new URL(proxy.urlThrough(db.url));
    url.password = 'pw-that-must-not-be-logged';
    return url.toString();
  };
  const failureOf = async (work: () => Promise<unknown>) => {
    try {
      await work();
    } catch (err) {
      return err;
    }
    throw new Error('expected a failure');
  };

  it('are recognised: refused, reset mid-query, terminated by the server', async () => {
    const pool = createPool(proxy.urlThrough(db.url), 2);
    try {
      const client = await pool.connect();
      const broken = client.query('select pg_sleep(5)');
      await waitFor(async () => proxy.openConnections >= 2, { what: 'the connection' });
      await proxy.cut();
      expect(isDatabaseUnavailable(await failureOf(() => broken))).to.equal(true);
      client.release(true);
      expect(isDatabaseUnavailable(await failureOf(() => pool.query('select 1')))).to.equal(true);
      await proxy.restore();

      const terminated = await pool.connect();
      const pid = (await terminated.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
      const waiting = terminated.query('select pg_sleep(5)');
      await db.pool.query('select pg_terminate_backend($1)', [pid]);
      expect(isDatabaseUnavailable(await failureOf(() => waiting))).to.equal(true);
      terminated.release(true);
    } finally {
      await pool.end();
    }
  });

  it('are told to a caller as 503 service_unavailable with retry-after, whether or not its answer has begun (a stream’s error event)', async () => {
    const pool = createPool(db.url, 1);
    try {
      const client = await pool.connect();
      const pid = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
      const waiting = client.query('select pg_sleep(5)');
      await db.pool.query('select pg_terminate_backend($1)', [pid]);
      const told = answerableError(await failureOf(() => waiting));
      client.release(true);
      expect(told).to.include({ status: 503, code: 'service_unavailable' });
      expect(told!.headers).to.deep.equal({ 'retry-after': '2' });
      // A fault of ours is no answer to give: a 500 (or a stream's plain "could not be recorded").
      expect(answerableError(new TypeError('x is undefined'))).to.equal(undefined);
    } finally {
      await pool.end();
    }
  });

  it('are recognised: a server with no connection slot left answers "too many clients" (53300)', async () => {
    // A role allowed no connection gets the same refusal as a server at max_connections, which
    // several web and worker processes on one database can reach.
    const role = `polder_no_slots_${process.pid}`;
    await db.pool.query(`create role ${role} login connection limit 0`);
    const url = new URL(db.url);
    url.username = role;
    const pool = createPool(url.toString(), 1);
    try {
      const refusal = await failureOf(() => pool.query('select 1'));
      expect((refusal as { code?: string }).code).to.equal('53300');
      expect(isDatabaseUnavailable(refusal)).to.equal(true);
    } finally {
      await pool.end();
      await db.pool.query(`drop role ${role}`);
    }
  });

  it('are recognised: a database closed to connections for maintenance (allow_connections false, QA: 500s)', async () => {
    const closed = `${new URL(db.url).pathname.slice(1)}_closed`;
    await db.pool.query(`create database ${closed}`);
    await db.pool.query(`alter database ${closed} allow_connections false`);
    const url = new URL(db.url);
    url.pathname = `/${closed}`;
    const pool = createPool(url.toString(), 1);
    try {
      const refusal = await failureOf(() => pool.query('select 1'));
      expect((refusal as { code?: string }).code).to.equal('55000');
      expect(isDatabaseUnavailable(refusal)).to.equal(true);
      expect(answerableError(refusal)).to.include({ status: 503, code: 'service_unavailable' });
    } finally {
      await pool.end();
      await db.pool.query(`drop database ${closed}`);
    }
  });

  it('are not confused with the failures of a request', async () => {
    expect(isDatabaseUnavailable(await failureOf(() => db.pool.query('select nonsense from nowhere')))).to.equal(false);
    expect(isDatabaseUnavailable(await failureOf(() => db.pool.query('select 1/0')))).to.equal(false);
    // How Node's http server reports a client that went away mid-upload.
    expect(isDatabaseUnavailable(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }))).to.equal(false);
    expect(isDatabaseUnavailable(undefined)).to.equal(false);
    expect(isDatabaseUnavailable('ECONNREFUSED')).to.equal(false);
  });

  it("reach the pool's error handler without the client, whose parameters hold the password", async () => {
    const logs = capturedLogger('warn');
    const pool = createPool(withPassword(), 2, (err) => logs.log.warn({ err }, 'database connection error'));
    // Trust authentication ignores the password; it is only there to be looked for in the log.
    try {
      await pool.query('select 1');
      expect(pool.idleCount).to.equal(1);
      await proxy.cut();
      await waitFor(async () => logs.lines().length > 0, { what: 'the idle connection error' });
      expect(logs.text()).to.contain('ECONNRESET');
      expect(logs.text()).not.to.contain('pw-that-must-not-be-logged');
      expect(logs.text()).not.to.contain('connectionParameters');
    } finally {
      await pool.end();
    }
  });
});
