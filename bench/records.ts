// npm run bench:records — what the records statement (src/metering/writeRecords.ts) costs Postgres
// per request, and which of a request's records costs what.
//
// One connection with the group commit's settings (synchronous_commit on) writes batches of a short
// chat's records, serialized by the product's own serializeRecords: usage line, trace, audit entry
// and cache entry, as a cache miss without a thread leaves them. The Postgres backend's CPU comes
// from /proc/<pid>/stat (so Postgres must run on this machine); the WAL writer's and other server
// processes' work is not in it (bench:gateway counts those). Each variant leaves one part out, so
// the difference to "every part" is that part's cost. Variants take their turns round by round
// (the VMs this runs on change speed for seconds at a time) and the median round is shown.
//
//   npm run bench:records              # 5 rounds, batches of 1, 8 and 32
//   npm run bench:records -- --quick   # 2 rounds
//   PG_OPTIONS='-c synchronous_commit=off' npm run bench:records   # more settings for the connection
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { createPool } from '../src/db/pool.js';
import { migrate } from '../src/db/migrate.js';
import { spendRecords } from '../src/limits/gate.js';
import { serializeRecords, type SerializedRecords } from '../src/metering/records.js';
import { writeRecords } from '../src/metering/writeRecords.js';
import { plainTrace } from '../src/traces/store.js';
import { benchDatabaseUrl } from './bench-postgres.js';

const quick = process.argv.includes('--quick');
const ROUNDS = quick ? 2 : 5;
const BATCH_SIZES = [1, 8, 32];
// Requests per variant, batch size and round.
const REQUESTS = quick ? 1_500 : 3_000;
const DATABASE = `polder_bench_records_${process.pid}`;

type Part = 'usage' | 'trace' | 'audit' | 'cache' | 'spend';
const VARIANTS: { name: string; without?: Part }[] = [
  { name: 'every part' },
  { name: 'without the trace', without: 'trace' },
  { name: 'without the audit entry', without: 'audit' },
  { name: 'without the usage line', without: 'usage' },
  { name: 'without the cache entry', without: 'cache' },
  { name: 'without the limit counters', without: 'spend' },
];

interface Owner {
  organizationId: string;
  workspaceId: string;
  keyId: string;
}

/** The records a short, answered chat leaves on a cache miss, shaped as the gateway makes them. */
function chatRecords(owner: Owner): SerializedRecords {
  const id = randomUUID();
  const now = new Date().toISOString();
  const credits = { base: 0.00012, services: 0.0000012, total: 0.0001212 };
  const request = { model: 'bench/chat', messages: [{ role: 'user', content: `Bench ${id}: reply with a short greeting.` }] };
  const choices = [
    { index: 0, message: { role: 'assistant', content: 'Hello! How can I help you today?' }, finish_reason: 'stop', logprobs: null },
  ];
  return serializeRecords({
    usage: [
      {
        organization_id: owner.organizationId,
        workspace_id: owner.workspaceId,
        request_id: id,
        line: 0,
        kind: 'chat',
        model: 'bench/chat',
        provider: 'stub',
        prompt_tokens: 14,
        completion_tokens: 9,
        cached_tokens: 0,
        credits,
        created_at: now,
      },
    ],
    trace: plainTrace({
      workspace_id: owner.workspaceId,
      organization_id: owner.organizationId,
      id,
      kind: 'chat',
      key_id: owner.keyId,
      model: 'bench/chat',
      provider: 'stub',
      attempts: [{ model: 'bench/chat', provider: 'stub', status: 200, error: null, latency_ms: 0.4 }],
      status: 200,
      latency_ms: 1.2,
      prompt_tokens: 14,
      completion_tokens: 9,
      credits,
      cache: 'MISS',
      input: request,
      output: choices,
      firewall: { counts: {}, distinct: {}, languages: { skipped: 1 }, language: 'auto' },
      created_at: now,
    }),
    audit: {
      organization_id: owner.organizationId,
      workspace_id: owner.workspaceId,
      at: now,
      actor: { key_id: owner.keyId, kind: 'organization' },
      action: 'chat.completion',
      target: id,
      details: { status: 200, model: 'bench/chat', provider: 'stub' },
    },
    cache: {
      workspace_id: owner.workspaceId,
      key: randomBytes(32),
      response: { completion: { id, created: 1, choices: choices as never }, model: 'bench/chat', provider: 'stub' },
      ttl_seconds: 3600,
      end_user: null,
      fact_ids: [],
      document_ids: [],
    },
    // A request under budgets on its workspace and organization: its credits go into their day
    // and month counters (limits/gate.ts).
    spend: spendRecords(owner, credits.total, Date.now()),
  });
}

function without(records: SerializedRecords, part: Part | undefined): SerializedRecords {
  if (!part) return records;
  return { ...records, [part]: part === 'usage' || part === 'spend' ? [] : undefined };
}

/** CPU time (user + system) of a process, in seconds. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime, in clock ticks (100 per second on Linux).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function main(): Promise<void> {
  const admin = new pg.Client({ connectionString: benchDatabaseUrl('postgres') });
  await admin.connect();
  await admin.query(`drop database if exists ${DATABASE}`);
  await admin.query(`create database ${DATABASE}`);
  const url = benchDatabaseUrl(DATABASE);
  try {
    const pool = createPool(url, 2);
    await migrate(pool);
    const { rows } = await pool.query<{ id: string; organization_id: string }>(
      `with org as (insert into organizations (name) values ('bench') returning id)
       insert into workspaces (organization_id, name) select id, 'main' from org returning id, organization_id`,
    );
    await pool.end();
    const owner: Owner = { organizationId: rows[0]!.organization_id, workspaceId: rows[0]!.id, keyId: randomUUID() };

    const client = new pg.Client({ connectionString: url, application_name: 'polder-records', options: `-c synchronous_commit=on ${process.env.PG_OPTIONS ?? ''}` });
    await client.connect();
    const backend = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
    for (let i = 0; i < 50; i++) await writeRecords(client, Array.from({ length: 8 }, () => chatRecords(owner)));

    // µs of backend CPU per request, per variant and batch size, one figure per round.
    const figures = new Map<string, number[]>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const size of BATCH_SIZES) {
        // A different variant goes first in each round.
        const order = VARIANTS.map((_, i) => VARIANTS[(i + round) % VARIANTS.length]!);
        for (const variant of order) {
          const batches = Array.from({ length: Math.ceil(REQUESTS / size) }, () =>
            Array.from({ length: size }, () => without(chatRecords(owner), variant.without)),
          );
          const before = cpuSeconds(backend);
          for (const batch of batches) await writeRecords(client, batch);
          const perRequest = ((cpuSeconds(backend) - before) * 1e6) / (batches.length * size);
          const key = `${variant.name}\0${size}`;
          figures.set(key, [...(figures.get(key) ?? []), perRequest]);
        }
      }
      process.stderr.write(`round ${round + 1} of ${ROUNDS} done\n`);
    }
    await client.end();

    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const fmt = (value: number) => value.toFixed(0).padStart(6);
    const every = (size: number) => median(figures.get(`every part\0${size}`)!);
    process.stdout.write(
      `\nPostgres backend CPU per request of the records statement (synchronous_commit on), µs, median of ${ROUNDS} rounds;\n` +
        `each variant's difference to "every part" is what that part costs\n\n`,
    );
    process.stdout.write(`${'records written'.padEnd(26)}${BATCH_SIZES.map((s) => `  batch ${String(s).padStart(2)}  (part)`).join('')}\n`);
    for (const variant of VARIANTS) {
      const cells = BATCH_SIZES.map((size) => {
        const value = median(figures.get(`${variant.name}\0${size}`)!);
        const part = variant.without ? `(${fmt(every(size) - value).trim()})` : '';
        return `  ${fmt(value)}  ${part.padStart(8)}`;
      });
      process.stdout.write(`${variant.name.padEnd(26)}${cells.join('')}\n`);
    }
  } finally {
    await admin.query(`drop database if exists ${DATABASE} with (force)`);
    await admin.end();
  }
}

await main();
