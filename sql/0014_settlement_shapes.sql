-- The drain's fast path (sql/0011) writes pending settlements without the checks the slow path
-- makes (tasks/settlements__drain.ts): what those checks say about a row's shape, the tables now
-- say too, so a malformed row fails the batch, which then falls back to checking each row and sets
-- the bad one aside with its reason, instead of landing: a trace whose attempts are not a list, an
-- id longer than a request id may be, an empty model or action.
--
-- Rows written so far all passed those checks on their way in; `not valid` + `validate` checks
-- them without blocking writes meanwhile.
alter table usage
  add constraint usage_shape_check
  check (char_length(request_id) between 1 and 255 and char_length(model) >= 1) not valid;
alter table usage validate constraint usage_shape_check;

alter table traces
  add constraint traces_shape_check
  check (
    char_length(id) between 1 and 255
    and jsonb_typeof(attempts) = 'array'
    and jsonb_typeof(notes) = 'array'
    and jsonb_typeof(sources) = 'array'
    and latency_ms >= 0
  ) not valid;
alter table traces validate constraint traces_shape_check;

alter table audit_log
  add constraint audit_log_shape_check
  check (
    char_length(action) between 1 and 100
    and char_length(target) <= 1000
    and jsonb_typeof(details) = 'object'
  ) not valid;
alter table audit_log validate constraint audit_log_shape_check;
