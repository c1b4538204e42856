import type { Queryable } from '../../db/pool.js';
import type { InputItem, ResponseObject } from './types.js';

// Stored responses (sql stored_responses): one row per answered turn, workspace-scoped, written with
// the request's other records (metering/writeRecords.ts). Every query here names the acting key's
// workspace; another workspace's id is simply not found.

export interface StoredTurn {
  id: string;
  input: InputItem[];
  response: ResponseObject;
  /** The end-user the turn's request named (`user`), or null. */
  end_user: string | null;
}

/** How many turns a chain may hold before the oldest are left out: bounds the work one request causes. */
export const MAX_CHAIN_TURNS = 1000;

export async function findResponse(db: Queryable, workspaceId: string, id: string): Promise<ResponseObject | undefined> {
  const { rows } = await db.query<{ response: ResponseObject }>(
    'select response from stored_responses where workspace_id = $1 and id = $2',
    [workspaceId, id],
  );
  return rows[0]?.response;
}

/** The input items the caller sent for one stored response, or undefined when there is none. */
export async function findResponseInput(db: Queryable, workspaceId: string, id: string): Promise<InputItem[] | undefined> {
  const { rows } = await db.query<{ input: InputItem[] }>('select input from stored_responses where workspace_id = $1 and id = $2', [workspaceId, id]);
  return rows[0]?.input;
}

export async function deleteResponse(db: Queryable, workspaceId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('delete from stored_responses where workspace_id = $1 and id = $2', [workspaceId, id]);
  return (rowCount ?? 0) > 0;
}

/**
 * The turns that lead to `id`, oldest first, `id` last; empty when the workspace holds no such
 * response. A deleted or expired link ends the chain there.
 */
export async function chainOf(db: Queryable, workspaceId: string, id: string): Promise<StoredTurn[]> {
  const { rows } = await db.query<StoredTurn & { depth: number }>(
    `with recursive chain as (
       select id, previous_response_id, input, response, end_user, 0 as depth
         from stored_responses where workspace_id = $1 and id = $2
       union all
       select s.id, s.previous_response_id, s.input, s.response, s.end_user, chain.depth + 1
         from chain join stored_responses s on s.workspace_id = $1 and s.id = chain.previous_response_id
        where chain.depth + 1 < $3
     )
     select id, input, response, end_user, depth from chain order by depth desc`,
    [workspaceId, id, MAX_CHAIN_TURNS],
  );
  return rows.map(({ id: turnId, input, response, end_user }) => ({ id: turnId, input, response, end_user }));
}

/** Erasure: every stored response of calls that named the end-user. */
export async function deleteResponsesOfEndUser(db: Queryable, workspaceId: string, endUser: string): Promise<number> {
  const { rowCount } = await db.query('delete from stored_responses where workspace_id = $1 and end_user = $2', [workspaceId, endUser]);
  return rowCount ?? 0;
}

/** Retention: one bounded batch of responses older than `days`; the cron task repeats until none is left. */
export async function pruneStoredResponses(db: Queryable, days: number, limit = 10_000): Promise<number> {
  const { rowCount } = await db.query(
    `delete from stored_responses
      where ctid in (select ctid from stored_responses where created_at < now() - make_interval(days => $1::int) limit $2)`,
    [days, limit],
  );
  return rowCount ?? 0;
}
