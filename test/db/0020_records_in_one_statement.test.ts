import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { createPool, type Pool } from '../../src/db/pool.js';
import { migrate } from '../../src/db/migrate.js';
import { fromRoot } from '../../src/paths.js';
import { databaseUrl } from '../helpers/db.js';

// An upgrade over a database that the outbox was still in use on: what it held at that moment is
// written, audit entries still queued as jobs too, and what the drain had set aside is kept.
describe('sql/0020: the upgrade from the outbox', () => {
  const name = `polder_test_upgrade_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  let admin: Pool;
  let pool: Pool;
  let before19: string;
  before(async () => {
    admin = createPool(databaseUrl('postgres'), 1);
    await admin.query(`create database ${name}`);
    pool = createPool(databaseUrl(name), 3);
    before19 = mkdtempSync(join(tmpdir(), 'polder-sql-'));
    for (const file of readdirSync(fromRoot('sql')).filter((f) => f < '0020')) copyFileSync(fromRoot('sql', file), join(before19, file));
  });
  after(async () => {
    await pool.end();
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
    rmSync(before19, { recursive: true, force: true });
  });

  it('writes the pending records and the queued audit entries, keeps what was set aside, and drops the outbox', async () => {
    await migrate(pool, { dir: before19 });
    const { rows } = await pool.query(
      `with org as (insert into organizations (name) values ('acme') returning id)
       insert into workspaces (organization_id, name) select id, 'main' from org returning id, organization_id`,
    );
    const { id: workspace, organization_id: organization } = rows[0];
    const at = new Date().toISOString();
    const audit = (target: string) => ({
      event_id: randomUUID(), organization_id: organization, workspace_id: workspace, at,
      actor: { key_id: null, kind: 'organization' }, action: 'chat.completion', target, details: {},
    });
    const usage = {
      organization_id: organization, workspace_id: workspace, request_id: 'pending-1', kind: 'chat', model: 'local/echo',
      provider: 'local', prompt_tokens: 3, completion_tokens: 2, cached_tokens: 0, credits: { base: 0.1, services: 0, total: 0.1 }, created_at: at,
    };
    const trace = {
      workspace_id: workspace, organization_id: organization, id: 'pending-1', key_id: null, name: null, tags: [], thread: 't',
      end_user: null, application: null, trace_id: null, parent_span_id: null, model: 'local/echo', provider: 'local', attempts: [],
      status: 200, latency_ms: 1, prompt_tokens: 3, completion_tokens: 2, cached_tokens: 0, credits: { base: 0.1, services: 0, total: 0.1 },
      stream: false, cache: 'MISS', input: {}, output: [], notes: [], sources: [], firewall: null, created_at: at,
    };
    const thread = { workspace_id: workspace, organization_id: organization, thread: 't', request_id: 'pending-1', created_at: at, messages: [{ role: 'user', content: 'Hoi' }] };
    await pool.query(
      `insert into pending_settlements (workspace_id, request_id, usage, trace, audit, thread) values ($1, 'pending-1', $2, $3, $4, $5)`,
      [workspace, usage, trace, audit('pending-1'), thread],
    );
    await pool.query(
      `insert into pending_settlements (workspace_id, usage, audit, failed_at, error) values ($1, $2, $3, now(), 'set aside')`,
      [workspace, { ...usage, request_id: 'aside-1', prompt_tokens: -1 }, audit('aside-1')],
    );
    await pool.query(`select graphile_worker.add_job('audit__record', $1::json)`, [JSON.stringify({ entries: [audit('queued-1')] })]);
    await pool.query(`select graphile_worker.add_job('settlements__drain', '{}'::json, job_key => 'settlements__drain')`);

    await migrate(pool);
    const written = await pool.query(
      `select (select count(*)::int from usage where request_id = 'pending-1') as usage,
              (select count(*)::int from traces where id = 'pending-1') as traces,
              (select count(*)::int from thread_messages where request_id = 'pending-1') as messages,
              (select count(*)::int from audit_log where target in ('pending-1', 'queued-1')) as audit,
              (select count(*)::int from graphile_worker.jobs where task_identifier in ('audit__record', 'settlements__drain')) as jobs,
              to_regclass('pending_settlements') is null as outbox_gone,
              (select count(*)::int from unwritten_settlements where error = 'set aside') as set_aside`,
    );
    expect(written.rows[0]).to.deep.equal({ usage: 1, traces: 1, messages: 1, audit: 2, jobs: 0, outbox_gone: true, set_aside: 1 });
  });
});
