-- A budget's 80 % and 100 % marks are written once per window, by whichever comes first: the
-- records statement whose credits cross the mark, the first request a spent budget refuses, or a
-- budget set when the window's spend is already past it (src/limits/store.ts markBudget). Each
-- looks for the mark already written through this index, which holds only those entries.
create index audit_log_budget_marks_idx on audit_log (target) where action = 'budget.threshold';
