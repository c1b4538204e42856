import type { Queryable } from '../db/pool.js';
import { encodeKeys } from '../gateway/cacheKeyFilter.js';
import { CACHE_KEYS_CHANNEL } from '../gateway/responseCache.js';
import { BUDGET_MARKS_TAIL_SQL } from '../limits/budgetMarks.js';
import type { SpendRecord } from '../limits/gate.js';
import { serializeRecords, type RequestRecords, type SerializedRecords } from './records.js';

// The one writer of what requests leave behind: usage, traces, the audit log, thread messages, the
// answers kept for replay, the response cache and the Responses door's stored responses, for a whole batch of requests in one statement,
// so one transaction and one round trip. The group commit runs it for the requests the clients
// wait for; ingest, fact extraction and every audited change run it inside their own transaction.
//
// Rows that the batch holds twice are written once: two identical requests that missed the cache
// together store one entry (an upsert may not touch a row twice in one statement). A usage line, a
// trace, a thread message, a kept answer are written once per key, whatever runs the statement
// again; an audit entry is an event, written with what it records. The keys of the
// cache entries it stores are announced to every web process (CacheKeyFilter) when it commits;
// data-modifying CTEs run whether or not the final select reads them.
//
// The statement's first line names it, so that an erasure can find the ones still running.
const RECORDS_STATEMENT_MARK = '-- polder: write records';
const WRITE_RECORDS_SQL = `${RECORDS_STATEMENT_MARK}
  with erased as materialized (
    -- Requests that named an end-user who was erased after they began (sql/0029): billed and
    -- audited, but nothing held about the end-user is written for them.
    select s.workspace_id, s.request_id, s.end_user
      from json_to_recordset($11::json) as s(workspace_id uuid, request_id text, end_user text, started_at timestamptz)
      join end_user_erasures x on x.workspace_id = s.workspace_id and x.user_ref = s.end_user and x.erased_at > s.started_at
  ), usage_rows as (
    -- One line per request id (an upsert may touch a row once per statement), a whole answer's
    -- before a partial one. A line is written once, unless the one there is partial (a stream the
    -- client closed): the retry that ran anew replaces it, and the caller pays for one answer.
    insert into usage (organization_id, workspace_id, request_id, line, kind, model, provider, prompt_tokens,
                       completion_tokens, cached_tokens, cache_write_tokens, credits_base, credits_services,
                       credits_total, created_at, partial)
    select distinct on (u.workspace_id, u.request_id, u.line)
           u.organization_id, u.workspace_id, u.request_id, u.line, u.kind, u.model, u.provider, u.prompt_tokens,
           u.completion_tokens, u.cached_tokens, coalesce(u.cache_write_tokens, 0), u.credits_base, u.credits_services,
           u.credits_total, u.created_at, coalesce(u.partial, false)
      from json_to_recordset($1::json) as u(
             organization_id uuid, workspace_id uuid, request_id text, line smallint, kind text, model text, provider text,
             prompt_tokens integer, completion_tokens integer, cached_tokens integer, cache_write_tokens integer, credits_base numeric,
             credits_services numeric, credits_total numeric, created_at timestamptz, partial boolean)
     order by u.workspace_id, u.request_id, u.line, coalesce(u.partial, false)
    on conflict (workspace_id, request_id, line) do update
       set (kind, model, provider, prompt_tokens, completion_tokens, cached_tokens, cache_write_tokens, credits_base,
            credits_services, credits_total, created_at, partial)
         = (excluded.kind, excluded.model, excluded.provider, excluded.prompt_tokens, excluded.completion_tokens,
            excluded.cached_tokens, excluded.cache_write_tokens, excluded.credits_base, excluded.credits_services,
            excluded.credits_total, excluded.created_at, excluded.partial)
     where usage.partial
  ), trace_rows as (
    insert into traces (workspace_id, organization_id, id, kind, key_id, name, tags, thread, end_user, application,
                        trace_id, parent_span_id, model, provider, attempts, status, latency_ms, prompt_tokens,
                        completion_tokens, cached_tokens, cache_write_tokens, credits_base, credits_services,
                        credits_total, stream, cache, input, output, notes, sources, firewall, created_at)
    select t.workspace_id, t.organization_id, t.id, t.kind, t.key_id, t.name,
           array(select json_array_elements_text(t.tags)), t.thread, t.end_user, t.application,
           t.trace_id, t.parent_span_id, t.model, t.provider, t.attempts, t.status, t.latency_ms, t.prompt_tokens,
           t.completion_tokens, t.cached_tokens, coalesce(t.cache_write_tokens, 0), t.credits_base, t.credits_services,
           t.credits_total, t.stream,
           t.cache, t.input, t.output, t.notes, t.sources, t.firewall, t.created_at
      from json_to_recordset($2::json) as t(
             workspace_id uuid, organization_id uuid, id text, kind text, key_id uuid, name text, tags json,
             thread text, end_user text, application text, trace_id text, parent_span_id text, model text,
             provider text, attempts jsonb, status integer, latency_ms double precision, prompt_tokens integer,
             completion_tokens integer, cached_tokens integer, cache_write_tokens integer, credits_base numeric,
             credits_services numeric, credits_total numeric, stream boolean, cache text, input json, output json, notes jsonb,
             sources jsonb, firewall json, created_at timestamptz)
     where not exists (select 1 from erased e where e.workspace_id = t.workspace_id and e.request_id = t.id)
    -- A request id's trace is its first attempt's, unless that failed: the retry that succeeded
    -- (and is billed) replaces it.
    on conflict (workspace_id, id) do update
       set (kind, key_id, name, tags, thread, end_user, application, trace_id, parent_span_id, model, provider,
            attempts, status, latency_ms, prompt_tokens, completion_tokens, cached_tokens, cache_write_tokens, credits_base,
            credits_services, credits_total, stream, cache, input, output, notes, sources, firewall, created_at)
         = (excluded.kind, excluded.key_id, excluded.name, excluded.tags, excluded.thread, excluded.end_user,
            excluded.application, excluded.trace_id, excluded.parent_span_id, excluded.model, excluded.provider,
            excluded.attempts, excluded.status, excluded.latency_ms, excluded.prompt_tokens,
            excluded.completion_tokens, excluded.cached_tokens, excluded.cache_write_tokens, excluded.credits_base, excluded.credits_services,
            excluded.credits_total, excluded.stream, excluded.cache, excluded.input, excluded.output,
            excluded.notes, excluded.sources, excluded.firewall, excluded.created_at)
     where traces.status >= 400 and excluded.status < 400
  ), audit_rows as (
    insert into audit_log (organization_id, workspace_id, at, actor_key_id, actor_kind, action, target, details)
    select e.organization_id, e.workspace_id, e.at, (e.actor->>'key_id')::uuid, e.actor->>'kind', e.action, e.target,
           -- A request whose end-user was erased while it ran is audited without their name, as
           -- the erasure left the entries written before it (src/memory/erasure.ts).
           case when exists (select 1 from erased x where x.workspace_id = e.workspace_id and x.request_id = e.target)
                then e.details - 'user' - 'user_ref' || '{"user_erased": true}' else e.details end
      from json_to_recordset($3::json) as e(
             organization_id uuid, workspace_id uuid, at timestamptz, actor json, action text, target text,
             details jsonb)
  ), appends as (
    select a.workspace_id, a.organization_id, a.thread, a.request_id, a.created_at, a.end_user, a.messages
      from json_to_recordset($4::json) as a(
             workspace_id uuid, organization_id uuid, thread text, request_id text, created_at timestamptz,
             end_user text, messages json)
     where not exists (select 1 from erased e where e.workspace_id = a.workspace_id and e.request_id = a.request_id)
  ), threads_touched as (
    insert into threads (workspace_id, id, organization_id, created_at, updated_at)
    select distinct on (workspace_id, thread) workspace_id, thread, organization_id, created_at, created_at
      from appends
     order by workspace_id, thread, created_at desc
    on conflict (workspace_id, id) do update set updated_at = greatest(threads.updated_at, excluded.updated_at)
    returning workspace_id, id
  ), thread_message_rows as (
    insert into thread_messages (workspace_id, thread_id, request_id, position, role, content, created_at, end_user)
    select a.workspace_id, a.thread, a.request_id, m.position - 1, m.message->>'role', m.message->'content', a.created_at,
           a.end_user
      from appends a
     cross join lateral json_array_elements(a.messages) with ordinality as m(message, position)
      join threads_touched t on t.workspace_id = a.workspace_id and t.id = a.thread
    on conflict (workspace_id, thread_id, request_id, position) do nothing
  ), completed_requests as (
    insert into requests (workspace_id, request_id, organization_id, kind, body_hash, state, response, completed_at,
                          end_user, fact_ids)
    select r.workspace_id, r.request_id, r.organization_id, r.kind, decode(r.body_hash, 'hex'), 'completed',
           r.response, now(), r.end_user, array(select json_array_elements_text(r.fact_ids))::uuid[]
      from json_to_recordset($5::json) as r(
             workspace_id uuid, request_id text, organization_id uuid, kind text, body_hash text, response json,
             end_user text, fact_ids json)
     where not exists (select 1 from erased e where e.workspace_id = r.workspace_id and e.request_id = r.request_id)
    -- A claim still running is completed; a row the prune freed (a request running over an hour) is
    -- written anew.
    on conflict (workspace_id, request_id) do update
       set state = 'completed', response = excluded.response, completed_at = excluded.completed_at,
           end_user = excluded.end_user, fact_ids = excluded.fact_ids
     where requests.state = 'running'
  ), erased_claims as (
    -- The claim of an erased request is freed: a retry is told its answer is not kept (it is billed).
    delete from requests q using erased e
     where q.workspace_id = e.workspace_id and q.request_id = e.request_id and q.state = 'running'
  ), cache_rows as (
    insert into response_cache (workspace_id, cache_key, response, expires_at, end_user, fact_ids, document_ids)
    select c.workspace_id, decode(c.cache_key, 'base64'), c.response, now() + make_interval(secs => c.ttl_seconds),
           c.end_user, array(select json_array_elements_text(c.fact_ids))::uuid[],
           nullif(array(select json_array_elements_text(c.document_ids))::uuid[], '{}')
      from json_to_recordset($6::json) as c(
             workspace_id uuid, cache_key text, response json, ttl_seconds integer, end_user text, fact_ids json, document_ids json)
     where not exists (select 1 from erased e where e.workspace_id = c.workspace_id and e.end_user = c.end_user)
    on conflict (workspace_id, cache_key) do update
       set response = excluded.response, created_at = now(), expires_at = excluded.expires_at,
           end_user = excluded.end_user, fact_ids = excluded.fact_ids, document_ids = excluded.document_ids
  ), stored_response_rows as (
    -- The Responses door's stored turn (store: true): a replay of the same response keeps the first.
    insert into stored_responses (workspace_id, id, organization_id, request_id, previous_response_id, end_user, input, response)
    select s.workspace_id, s.id, s.organization_id, s.request_id, s.previous_response_id, s.end_user, s.input, s.response
      from json_to_recordset($10::json) as s(
             workspace_id uuid, id text, organization_id uuid, request_id text, previous_response_id text, end_user text,
             input json, response json)
     where not exists (select 1 from erased e where e.workspace_id = s.workspace_id and e.request_id = s.request_id)
    on conflict (workspace_id, id) do nothing
  ), spend as (
    select * from json_to_recordset($9::json) as s(
      scope_kind text, scope_id uuid, counter text, window_start timestamptz, credits numeric, from_lease numeric, holder uuid)
  ), spend_counters as (
    -- Per counter; what the credits took from a lease shrinks the counter only while the web
    -- process still holds it (sql/0033): a lease the reclaim gave back was taken off already.
    select s.scope_kind, s.scope_id, s.counter, s.window_start, sum(s.credits) as credits,
           sum(case when exists (select 1 from limit_leases l
                                  where (l.holder, l.scope_kind, l.scope_id, l.counter, l.window_start)
                                      = (s.holder, s.scope_kind, s.scope_id, s.counter, s.window_start))
                    then s.from_lease else 0 end) as from_lease
      from spend s
     group by s.scope_kind, s.scope_id, s.counter, s.window_start
  ), spend_rows as (
    -- Credits billed into the limit counters (limits/gate.ts). \`last_grant\` carries in what the
    -- credits took from a web process's lease, by which the lease shrinks.
    insert into limit_counters (scope_kind, scope_id, counter, window_start, billed, last_grant)
    select scope_kind, scope_id, counter, window_start, credits, from_lease from spend_counters
    on conflict (scope_kind, scope_id, counter, window_start) do update
       set billed = limit_counters.billed + excluded.billed,
           leased = greatest(0, limit_counters.leased - excluded.last_grant)
    returning scope_kind, scope_id, counter, window_start, billed
  ), lease_rows as (
    -- The holder's row after the counter's (it reads spend_rows), the order every statement keeps.
    update limit_leases l
       set amount = greatest(0, l.amount - s.from_lease)
      from spend s join spend_rows r using (scope_kind, scope_id, counter, window_start)
     where s.from_lease > 0
       and (l.holder, l.scope_kind, l.scope_id, l.counter, l.window_start) = (s.holder, s.scope_kind, s.scope_id, s.counter, s.window_start)
  ), budgets as (
    select 'key' as scope_kind, k.id as scope_id, k.organization_id, k.workspace_id, k.credits_per_day, k.credits_per_month
      from api_keys k where k.id in (select scope_id from spend_rows where scope_kind = 'key')
    union all
    select l.scope_kind, l.scope_id, l.organization_id, case when l.scope_kind = 'workspace' then l.scope_id end,
           l.credits_per_day, l.credits_per_month
      from scope_limits l
     where (l.scope_kind, l.scope_id) in (select scope_kind, scope_id from spend_rows where scope_kind <> 'key')
  ), wanted_marks as (
    -- Only the batch whose credits carry the counter across a mark sees it below before and at or
    -- above after.
    select b.organization_id, b.workspace_id, r.scope_kind, r.scope_id, w.name as window_name, m.percent,
           w.budget, r.billed, r.window_start
      from spend_rows r
      join spend_counters s using (scope_kind, scope_id, counter, window_start)
      join budgets b using (scope_kind, scope_id)
     cross join lateral (
       select case r.counter when 'credits_day' then 'day' else 'month' end as name,
              case r.counter when 'credits_day' then b.credits_per_day else b.credits_per_month end as budget) w
     cross join (values (80), (100)) as m(percent)
     where w.budget is not null
       and r.billed >= w.budget * m.percent / 100 and r.billed - s.credits < w.budget * m.percent / 100
  ), ${BUDGET_MARKS_TAIL_SQL}
  select count(pg_notify($7, keys)) as announced, (select count(*) from budget_events) as budget_events
    from unnest($8::text[]) as keys`;

const jsonArray = (items: string[]) => `[${items.join(',')}]`;

/** The last of the batch's rows with each identity: an upsert may affect a row once per statement. */
function lastOfEach<T extends { identity: string }>(items: (T | undefined)[]): T[] {
  const byIdentity = new Map<string, T>();
  for (const item of items) if (item) byIdentity.set(item.identity, item);
  return [...byIdentity.values()];
}

/** The batch's credits per counter and lease holder: an upsert may touch each row once per statement. */
function summedSpend(batch: SerializedRecords[]): SpendRecord[] {
  const byCounter = new Map<string, SpendRecord>();
  for (const records of batch) {
    for (const record of records.spend) {
      const key = `${record.scope_kind}\0${record.scope_id}\0${record.counter}\0${record.window_start}\0${record.holder ?? ''}`;
      const sum = byCounter.get(key);
      if (sum) {
        sum.credits += record.credits;
        sum.from_lease += record.from_lease;
      } else {
        byCounter.set(key, { ...record });
      }
    }
  }
  return [...byCounter.values()];
}

/**
 * Writes the records of a batch of requests, serialized and checked by serializeRecords, in one
 * statement on `db` (the caller's transaction, or a commit of its own). Returns the cache keys it
 * stored.
 */
export async function writeRecords(db: Queryable, batch: SerializedRecords[]): Promise<Buffer[]> {
  const usage: string[] = [];
  const audit: string[] = [];
  const threads: string[] = [];
  const subjects: string[] = [];
  for (const records of batch) {
    usage.push(...records.usage);
    if (records.audit) audit.push(records.audit);
    if (records.thread) threads.push(records.thread);
    if (records.subject) subjects.push(records.subject);
  }
  const traces = lastOfEach(batch.map((records) => records.trace));
  const requests = lastOfEach(batch.map((records) => records.request));
  const cache = lastOfEach(batch.map((records) => records.cache));
  const cacheKeys = cache.map((entry) => entry.key);
  const storedResponses = lastOfEach(batch.map((records) => records.storedResponse));
  const spend = summedSpend(batch);
  // Named, so each connection parses and plans this long statement once.
  await db.query({
    name: 'polder-write-records',
    text: WRITE_RECORDS_SQL,
    values: [
      jsonArray(usage),
      jsonArray(traces.map((t) => t.json)),
      jsonArray(audit),
      jsonArray(threads),
      jsonArray(requests.map((r) => r.json)),
      jsonArray(cache.map((c) => c.json)),
      CACHE_KEYS_CHANNEL,
      encodeKeys(cacheKeys),
      JSON.stringify(spend),
      jsonArray(storedResponses.map((s) => s.json)),
      jsonArray(subjects),
    ],
  });
  return cacheKeys;
}

/** Checks, serializes and writes one request's (or one job's) records in the caller's transaction. */
export async function writeRecordsNow(db: Queryable, records: RequestRecords): Promise<void> {
  await writeRecords(db, [serializeRecords(records)]);
}

/**
 * Waits until no records statement whose transaction began before `since` is still running (or,
 * inside a job's transaction, uncommitted), for at most `timeoutMs`. An erasure calls it after
 * its mark has committed: a statement that began later sees the mark and writes nothing about the
 * end-user; one that began earlier has committed when this returns, so the erasure that follows
 * finds its rows. Only the erasure pays for this, never a request.
 */
export async function awaitRecordsBegunBefore(db: Queryable, since: Date, timeoutMs = 5_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  let pauseMs = 2;
  for (;;) {
    const running = await db.query<{ running: number }>(
      `select count(*)::int as running
         from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid()
          and xact_start < $1 and state <> 'idle' and starts_with(query, $2)`,
      [since, RECORDS_STATEMENT_MARK],
    );
    if (running.rows[0]!.running === 0) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
    pauseMs = Math.min(pauseMs * 2, 50);
  }
}
