// npm run bench:limits — what enforcing limits costs a web process per request: the CPU of the
// limit gate's admit and settle (src/limits/gate.ts) and how many lease statements reach Postgres.
//
// A principal with every limit set on its key, workspace and organization, too high to refuse,
// sends requests one after another through a real LimitGate over a real database: each is admitted
// (prompt tokens and worst-case credits as the chat service computes them are given as numbers) and
// settled. CPU is this process's (process.cpuUsage), so it includes the lease statements' client
// side; their round trips are counted by wrapping the pool's query.
//
//   npm run bench:limits              # 5 rounds of 20,000 requests
//   npm run bench:limits -- --quick   # 2 rounds of 5,000
import { createPool, type Pool } from '../src/db/pool.js';
import { migrate } from '../src/db/migrate.js';
import { LimitGate } from '../src/limits/gate.js';
import { createLogger } from '../src/logger.js';
import type { Principal } from '../src/tenancy/store.js';
import { createKey, KeyResolver } from '../src/tenancy/keys.js';
import { benchDatabaseUrl, withMaintenanceClient } from './bench-postgres.js';

const quick = process.argv.includes('--quick');
const ROUNDS = quick ? 2 : 5;
const REQUESTS = quick ? 5_000 : 20_000;
const DATABASE = `polder_bench_limits_${process.pid}`;

async function principalWithEveryLimit(pool: Pool): Promise<Principal> {
  const created = await createKey(pool, { organization: 'bench', workspace: 'bench', kind: 'organization' });
  const rates = 1_000_000_000;
  const credits = 10_000_000_000;
  await pool.query('update api_keys set requests_per_minute = $1, tokens_per_minute = $1, credits_per_day = $2, credits_per_month = $2', [rates, credits]);
  await pool.query(
    `insert into scope_limits (scope_kind, scope_id, organization_id, requests_per_minute, tokens_per_minute, credits_per_day, credits_per_month)
     values ('workspace', $1, $2, $3, $3, $4, $4), ('organization', $2, $2, $3, $3, $4, $4)`,
    [created.workspace_id, created.organization_id, rates, credits],
  );
  return (await new KeyResolver(pool).resolve(created.key))!;
}

async function main(): Promise<void> {
  await withMaintenanceClient((client) => client.query(`create database ${DATABASE}`));
  const pool = createPool(benchDatabaseUrl(DATABASE), 4);
  try {
    await migrate(pool);
    const principal = await principalWithEveryLimit(pool);
    // Requests run one after another, so the CPU between a statement's start and its answer is
    // the statement's (its client side: the parameters, the protocol, the rows).
    let statements = 0;
    let statementCpuUs = 0;
    const query = pool.query.bind(pool);
    (pool as { query: unknown }).query = async (...args: Parameters<typeof query>) => {
      statements += 1;
      const before = process.cpuUsage();
      try {
        return await query(...args);
      } finally {
        const spent = process.cpuUsage(before);
        statementCpuUs += spent.user + spent.system;
      }
    };
    const gate = new LimitGate(pool, createLogger('silent'));
    // A short chat: 40 prompt tokens, an answer capped at 200, a cost of 0.0005 credits at most.
    const demand = { tokens: () => 240, credits: () => 0.0005, reckoning: { tokens: 'a short chat', credits: 'a short chat', smaller: '' } };
    const rows: string[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      statements = 0;
      statementCpuUs = 0;
      const started = process.cpuUsage();
      const wall = performance.now();
      for (let i = 0; i < REQUESTS; i++) {
        const admission = await gate.admit(principal, demand);
        gate.settle(admission, { tokens: 120, credits: 0.0003 });
      }
      const cpu = process.cpuUsage(started);
      const cpuUs = (cpu.user + cpu.system) / REQUESTS;
      const leaseUs = statementCpuUs / REQUESTS;
      const wallUs = ((performance.now() - wall) * 1000) / REQUESTS;
      rows.push(
        [
          String(round).padStart(5),
          String(REQUESTS).padStart(8),
          cpuUs.toFixed(2).padStart(14),
          (cpuUs - leaseUs).toFixed(2).padStart(12),
          leaseUs.toFixed(2).padStart(11),
          wallUs.toFixed(2).padStart(11),
          String(statements).padStart(10),
          (REQUESTS / Math.max(1, statements)).toFixed(1).padStart(18),
        ].join('  '),
      );
    }
    await gate.close();
    process.stdout.write(
      [
        'bench:limits — the limit gate per request (admit + settle), every limit set on key, workspace and organization',
        'target: ≤ 15 µs of web CPU per request; ≤ 1 lease statement per 50 requests',
        '',
        'CPU µs per request: all of it; the gate alone (admit, settle, headers); the lease statements, spread over the requests',
        '',
        'round  requests  CPU µs/request  gate µs/req  leases µs/req  wall µs/req  statements  requests/statement',
        ...rows,
        '',
      ].join('\n'),
    );
  } finally {
    await pool.end();
    await withMaintenanceClient((client) => client.query(`drop database if exists ${DATABASE} with (force)`));
  }
}

await main();
