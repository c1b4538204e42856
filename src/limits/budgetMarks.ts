// The SQL that writes budget marks, shared by the two statements that reach them: the records
// statement, whose billing carries a counter across 80 % or 100 % (metering/writeRecords.ts), and
// markBudget, for a refusal or a budget set past a mark (limits/store.ts).
//
// It is the tail of a WITH: the statement defines `wanted_marks` before it, one row per mark
// reached (organization_id, workspace_id, scope_kind, scope_id, window_name, percent, budget,
// billed, window_start), and may read `budget_events` after it (one row per webhook event). A
// constant, never built from input.
//
// A mark is audited once per window (whichever statement comes first writes it; sql/0036 indexes
// the lookup), and sent as the budget.threshold webhook to its workspace, or for an organization's
// budget to each of its workspaces (those without a subscribed endpoint write nothing; sql/0025).
export const BUDGET_MARKS_TAIL_SQL = `
  budget_marks as (
    insert into audit_log (organization_id, workspace_id, at, actor_key_id, actor_kind, action, target, details)
    select m.organization_id, m.workspace_id, now(), null, 'service', 'budget.threshold', m.scope_id::text,
           jsonb_build_object('level', m.scope_kind, 'window', m.window_name, 'percent', m.percent, 'limit', m.budget,
                              'billed', m.billed, 'window_start', m.window_start)
      from wanted_marks m
     where not exists (select 1 from audit_log a
                        where a.action = 'budget.threshold' and a.target = m.scope_id::text
                          and a.details->>'window' = m.window_name and (a.details->>'percent')::int = m.percent
                          and (a.details->>'window_start')::timestamptz = m.window_start)
    returning organization_id, workspace_id, target, details
  ), budget_events as (
    select webhook_emit(m.organization_id, w.id, 'budget.threshold', m.details || jsonb_build_object('scope_id', m.target))
      from budget_marks m
      join workspaces w on w.organization_id = m.organization_id and w.id = coalesce(m.workspace_id, w.id)
  )`;
