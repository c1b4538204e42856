import type { AuditEntry } from '../audit/store.js';
import { storableJson } from '../db/storable.js';
import { RecordsRefused } from '../errors.js';
import type { CachedResponse } from '../gateway/responseCache.js';
import type { SpendRecord } from '../limits/gate.js';
import type { ThreadAppend } from '../threads/store.js';
import type { TraceRecord } from '../traces/store.js';
import type { SettledRequest } from './requestIds.js';
import type { UsageRecord } from './usageLines.js';

/** A response the Responses door keeps (`store`), written with the records of the request that answered it. */
export interface StoredResponseRecord {
  workspace_id: string;
  organization_id: string;
  /** `resp_…` */
  id: string;
  request_id: string;
  previous_response_id: string | null;
  end_user: string | null;
  /** This turn's input items, as the caller sent them. */
  input: unknown[];
  response: Record<string, unknown>;
}

// What a request leaves behind, written in one statement before its caller sees the answer
// (writeRecords.ts): its usage lines, trace, audit entry, thread append, the answer kept for a
// retry to replay, and a fresh response-cache entry. Background work (an ingest, a fact
// extraction) leaves the same kinds of records, written by the same statement in its own
// transaction.
//
// Each request's records are checked and serialized once, when they are handed over: a value a
// table would refuse fails that request alone, with a clear error, instead of the statement that
// carries the records of every request in its batch.

export interface CacheEntry {
  workspace_id: string;
  key: Buffer;
  response: CachedResponse;
  ttl_seconds: number;
  /**
   * The end-user the request that wrote the entry named, and the facts retrieved into its prompt
   * (see AnswerSubjects). The key is the masked prompt, not the end-user: another end-user who sends
   * the same prompt is answered from it, and the entry is erased with the end-user who wrote it.
   */
  end_user: string | null;
  fact_ids: string[];
  /** The documents whose passages were retrieved into it: deleting one deletes the entry. */
  document_ids: string[];
}

/**
 * The end-user a request named and when it began: if they are erased while it runs, what it would
 * hold about them (trace, thread append, kept answer, cache entry, stored response) is not written.
 */
export interface RecordsSubject {
  workspace_id: string;
  request_id: string;
  end_user: string;
  started_at: string;
}

/** `{subject}` for a request that named an end-user (none otherwise); `started` is its `performance.now()` at the start. */
export function subjectOf(
  request: { workspaceId: string; requestId: string },
  endUser: string | null | undefined,
  started: number,
): { subject?: RecordsSubject } {
  if (!endUser) return {};
  return {
    subject: {
      workspace_id: request.workspaceId,
      request_id: request.requestId,
      end_user: endUser,
      started_at: new Date(performance.timeOrigin + started).toISOString(),
    },
  };
}

export interface RequestRecords {
  /** What the request is billed: none for a failed request, several when several models or providers served it. */
  usage?: UsageRecord[];
  trace?: TraceRecord;
  audit?: AuditEntry;
  thread?: ThreadAppend;
  /** The caller chose the request id: the answer a retry replays. */
  request?: SettledRequest;
  cache?: CacheEntry;
  /** Its credits, billed into the limit counters of its key, workspace and organization. */
  spend?: SpendRecord[];
  storedResponse?: StoredResponseRecord;
  subject?: RecordsSubject;
}

/** The records as JSON objects, each ready to be joined into its table's array. */
export interface SerializedRecords {
  usage: string[];
  trace: { identity: string; json: string } | undefined;
  audit: string | undefined;
  thread: string | undefined;
  request: { identity: string; json: string } | undefined;
  cache: { identity: string; key: Buffer; json: string } | undefined;
  spend: SpendRecord[];
  storedResponse?: { identity: string; json: string } | undefined;
  subject?: string | undefined;
}

// Postgres' integer and numeric(20, 8), and the columns' own checks (sql/0011, sql/0014).
const MAX_INTEGER = 2_147_483_647;
const MAX_CREDITS = 1e12;
const MAX_ID_LENGTH = 255;
const ACTOR_KINDS = new Set(['organization', 'restricted', 'operator', 'service']);
const USAGE_KINDS = new Set(['chat', 'embeddings', 'ingest', 'facts']);
const REQUEST_KINDS = new Set(['chat', 'embeddings', 'collections', 'documents', 'facts', 'scores']);

type Problems = string[];

function count(problems: Problems, field: string, value: unknown): void {
  if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > MAX_INTEGER) {
    problems.push(`${field} must be a whole number from 0 to ${MAX_INTEGER}, not ${String(value)}`);
  }
}

function credits(problems: Problems, field: string, value: { base: number; services: number; total: number }): void {
  for (const part of ['base', 'services', 'total'] as const) {
    const amount = value[part];
    if (!Number.isFinite(amount) || amount < 0 || amount >= MAX_CREDITS) {
      problems.push(`${field}.${part} must be a number from 0 below ${MAX_CREDITS}, not ${String(amount)}`);
    }
  }
}

function text(problems: Problems, field: string, value: unknown, { min = 1, max = MAX_ID_LENGTH } = {}): void {
  if (typeof value !== 'string' || value.length < min || value.length > max) {
    problems.push(`${field} must be a text of ${min} to ${max} characters`);
  }
}

function checkUsage(problems: Problems, line: UsageRecord, index: number): void {
  const field = `usage.${index}`;
  text(problems, `${field}.request_id`, line.request_id);
  if (!Number.isInteger(line.line) || line.line < 0 || line.line > 32_767) problems.push(`${field}.line must be a whole number from 0 to 32767`);
  text(problems, `${field}.model`, line.model, { max: 1000 });
  if (!USAGE_KINDS.has(line.kind)) problems.push(`${field}.kind is not a usage kind`);
  count(problems, `${field}.prompt_tokens`, line.prompt_tokens);
  count(problems, `${field}.completion_tokens`, line.completion_tokens);
  count(problems, `${field}.cached_tokens`, line.cached_tokens);
  count(problems, `${field}.cache_write_tokens`, line.cache_write_tokens ?? 0);
  credits(problems, `${field}.credits`, line.credits);
}

function checkTrace(problems: Problems, trace: TraceRecord): void {
  text(problems, 'trace.id', trace.id);
  if (!Number.isInteger(trace.status)) problems.push('trace.status must be a whole number');
  if (!Number.isFinite(trace.latency_ms) || trace.latency_ms < 0) problems.push('trace.latency_ms must be a number from 0');
  count(problems, 'trace.prompt_tokens', trace.prompt_tokens);
  count(problems, 'trace.completion_tokens', trace.completion_tokens);
  count(problems, 'trace.cached_tokens', trace.cached_tokens);
  count(problems, 'trace.cache_write_tokens', trace.cache_write_tokens ?? 0);
  credits(problems, 'trace.credits', trace.credits);
}

function checkAudit(problems: Problems, entry: AuditEntry): void {
  text(problems, 'audit.action', entry.action, { max: 100 });
  if (entry.target !== null) text(problems, 'audit.target', entry.target, { min: 0, max: 1000 });
  if (!ACTOR_KINDS.has(entry.actor.kind)) problems.push('audit.actor.kind is not an actor kind');
}

function checkThread(problems: Problems, thread: ThreadAppend): void {
  text(problems, 'thread.thread', thread.thread);
  text(problems, 'thread.request_id', thread.request_id);
  thread.messages.forEach((message, index) => {
    if (typeof message.role !== 'string') problems.push(`thread.messages.${index}.role must be a text`);
  });
}

/** What a table would refuse in these records, as one line for the caller and the log; undefined when none. */
export function refusal(records: RequestRecords): string | undefined {
  const problems: Problems = [];
  records.usage?.forEach((line, index) => checkUsage(problems, line, index));
  if (records.trace) checkTrace(problems, records.trace);
  if (records.audit) checkAudit(problems, records.audit);
  if (records.thread) checkThread(problems, records.thread);
  if (records.request && !REQUEST_KINDS.has(records.request.kind)) problems.push('request.kind is not a request kind');
  if (records.cache && records.cache.key.length !== 32) problems.push('cache.key must be 32 bytes');
  if (records.storedResponse) text(problems, 'stored_response.id', records.storedResponse.id);
  return problems.length > 0 ? problems.join('; ') : undefined;
}

// The usage table keeps credits in three columns; a line carries them as one object. The rows are
// object literals, not copies made with a rest pattern: V8 serializes those several times slower
// (21 against 7.5 µs for a short chat's trace).
function usageRow(line: UsageRecord): string {
  return storableJson({
    organization_id: line.organization_id,
    workspace_id: line.workspace_id,
    request_id: line.request_id,
    line: line.line,
    kind: line.kind,
    model: line.model,
    provider: line.provider,
    prompt_tokens: line.prompt_tokens,
    completion_tokens: line.completion_tokens,
    cached_tokens: line.cached_tokens,
    cache_write_tokens: line.cache_write_tokens ?? 0,
    credits_base: line.credits.base,
    credits_services: line.credits.services,
    credits_total: line.credits.total,
    created_at: line.created_at,
    partial: line.partial === true,
  });
}

function traceRow(trace: TraceRecord): string {
  return storableJson({
    workspace_id: trace.workspace_id,
    organization_id: trace.organization_id,
    id: trace.id,
    kind: trace.kind,
    key_id: trace.key_id,
    name: trace.name,
    tags: trace.tags,
    thread: trace.thread,
    end_user: trace.end_user,
    application: trace.application,
    trace_id: trace.trace_id,
    parent_span_id: trace.parent_span_id,
    model: trace.model,
    provider: trace.provider,
    attempts: trace.attempts,
    status: trace.status,
    latency_ms: trace.latency_ms,
    prompt_tokens: trace.prompt_tokens,
    completion_tokens: trace.completion_tokens,
    cached_tokens: trace.cached_tokens,
    cache_write_tokens: trace.cache_write_tokens ?? 0,
    credits_base: trace.credits.base,
    credits_services: trace.credits.services,
    credits_total: trace.credits.total,
    stream: trace.stream,
    cache: trace.cache,
    input: trace.input,
    output: trace.output,
    notes: trace.notes,
    sources: trace.sources,
    firewall: trace.firewall,
    created_at: trace.created_at,
  });
}

/** Checks the records (RecordsRefused when a table would refuse them) and serializes each once. */
export function serializeRecords(records: RequestRecords): SerializedRecords {
  const refused = refusal(records);
  if (refused) throw new RecordsRefused(refused);
  const { request, cache } = records;
  const cacheKey = cache?.key.toString('base64');
  return {
    usage: (records.usage ?? []).map(usageRow),
    trace: records.trace ? { identity: `${records.trace.workspace_id}\0${records.trace.id}`, json: traceRow(records.trace) } : undefined,
    audit: records.audit ? storableJson(records.audit) : undefined,
    thread: records.thread ? storableJson(records.thread) : undefined,
    request: request ? { identity: `${request.workspace_id}\0${request.request_id}`, json: storableJson(request) } : undefined,
    spend: records.spend ?? [],
    subject: records.subject ? storableJson(records.subject) : undefined,
    storedResponse: records.storedResponse
      ? { identity: `${records.storedResponse.workspace_id}\0${records.storedResponse.id}`, json: storableJson(records.storedResponse) }
      : undefined,
    cache: cache
      ? {
          identity: `${cache.workspace_id}\0${cacheKey}`,
          key: cache.key,
          json: storableJson({
            workspace_id: cache.workspace_id,
            cache_key: cacheKey,
            response: cache.response,
            ttl_seconds: cache.ttl_seconds,
            end_user: cache.end_user,
            fact_ids: cache.fact_ids,
            document_ids: cache.document_ids,
          }),
        }
      : undefined,
  };
}
