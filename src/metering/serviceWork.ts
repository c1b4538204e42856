import { auditEntry } from '../audit/entries.js';
import type { AuditEntry } from '../audit/store.js';
import { spendRecords, type SpendRecord } from '../limits/gate.js';
import { plainTrace, type TraceKind } from '../traces/store.js';
import type { RequestRecords } from './records.js';
import { usageTotals, type UsageOwner, type UsageRecord } from './usageLines.js';

/**
 * The records of billed work the service does for a workspace (an ingest, a fact extraction, on
 * its own; a fact's correction, for a key): its usage lines, a trace under the work's id (the trace explorer shows what it
 * cost and how long it took, next to the chats), and an audit entry by the actor `service`.
 * Neither holds the work's text: only ids and counts.
 */
export function serviceWorkRecords(work: {
  owner: UsageOwner;
  kind: Extract<TraceKind, 'ingest' | 'facts'>;
  /** The work's id: the trace's id and its audit entry's target's prefix. */
  id: string;
  /** The audit entry's action and target. */
  action: string;
  target: string;
  usage: UsageRecord[];
  /** The model that did the main part of the work. */
  model: string;
  startedAt: number;
  input: Record<string, unknown>;
  output: Record<string, unknown>;
  /** More for the audit entry's details, beside the output and the credits. */
  auditDetails?: Record<string, unknown>;
  /** The key whose call did the work (a fact's correction); by default the service on its own. */
  actor?: AuditEntry['actor'];
  /** Its credits as the limit gate settled them (a key's call, admitted against its budgets); by default billed into the workspace's and organization's. */
  spend?: SpendRecord[];
}): RequestRecords {
  const actor = work.actor ?? { key_id: null, kind: 'service' };
  const totals = usageTotals(work.usage);
  const createdAt = work.usage[0]?.created_at ?? new Date().toISOString();
  return {
    usage: work.usage,
    trace: plainTrace({
      workspace_id: work.owner.workspaceId,
      organization_id: work.owner.organizationId,
      id: work.id,
      kind: work.kind,
      key_id: actor.key_id,
      model: work.model,
      provider: work.usage.find((line) => line.model === work.model)?.provider ?? null,
      status: 200,
      latency_ms: performance.now() - work.startedAt,
      ...totals,
      input: work.input,
      output: work.output,
      created_at: createdAt,
    }),
    audit: auditEntry({
      organization_id: work.owner.organizationId,
      workspace_id: work.owner.workspaceId,
      at: createdAt,
      actor,
      action: work.action,
      target: work.target,
      details: { ...work.output, ...work.auditDetails, credits: totals.credits.total },
    }),
    // Ingest and extraction count toward the workspace's and the organization's budgets.
    spend: work.spend ?? spendRecords(work.owner, totals.credits.total, Date.parse(createdAt)),
  };
}
