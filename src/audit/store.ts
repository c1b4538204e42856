import type { Queryable } from '../db/pool.js';

/** `service`: work the service did on its own, for a workspace (an ingest, a fact extraction). */
export type ActorKind = 'organization' | 'restricted' | 'operator' | 'service';

export interface AuditEntry {
  organization_id: string;
  workspace_id: string | null;
  at: string;
  actor: { key_id: string | null; kind: ActorKind };
  action: string;
  target: string | null;
  details: Record<string, unknown>;
}

export interface AuditRow {
  id: string;
  at: Date;
  actor_key_id: string | null;
  actor_kind: ActorKind;
  action: string;
  target: string | null;
  details: Record<string, unknown>;
  /** `at` to the microsecond, as the cursor carries it (a Date keeps milliseconds only). */
  position_at: string;
}

/** Where the previous page ended: entries are ordered by the time of the event, then by id. */
export interface AuditPosition {
  at: string;
  id: string;
}

/**
 * A page of the workspace's audit trail, newest first, including the organization-wide entries
 * (workspace_id null) of the workspace's organization. Transactions commit their entries in any
 * order, so the order is the event's time, not the row id. Each of the two kinds is read along its own index, in
 * order, at most a page of each, and the two are merged.
 */
export async function listAuditEntries(
  db: Queryable,
  scope: { organizationId: string; workspaceId: string },
  page: { action?: string; after?: AuditPosition; limit: number },
): Promise<AuditRow[]> {
  const { rows } = await db.query<AuditRow>(
    `select id::text, at, actor_key_id, actor_kind, action, target, details,
            to_char(at at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as position_at
       from ((select * from audit_log
               where workspace_id = $2 and organization_id = $1
                 and ($3::text is null or action = $3)
                 and ($4::timestamptz is null or (at, id) < ($4::timestamptz, $5::bigint))
               order by at desc, id desc
               limit $6)
             union all
             (select * from audit_log
               where organization_id = $1 and workspace_id is null
                 and ($3::text is null or action = $3)
                 and ($4::timestamptz is null or (at, id) < ($4::timestamptz, $5::bigint))
               order by at desc, id desc
               limit $6)) as entries
      order by at desc, id desc
      limit $6`,
    [scope.organizationId, scope.workspaceId, page.action ?? null, page.after?.at ?? null, page.after?.id ?? null, page.limit],
  );
  return rows;
}
