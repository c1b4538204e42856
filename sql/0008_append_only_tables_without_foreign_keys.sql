-- The tables every chat request writes (the request id, the cache entry, usage, the trace, the
-- audit entry) no longer reference workspaces and organizations. A foreign key costs each insert a
-- trigger, an index probe and a row lock on the referenced workspace and organization rows, which
-- every request of the workspace shares: nine per chat request, about a fifth of Postgres' CPU per
-- request under the gateway bench. The ids always come from the acting key's principal, so the
-- checks never caught anything. Workspaces and organizations are never deleted; a feature that
-- deletes one must delete these rows itself (an `on delete cascade` did that until now). The
-- tables stay keyed and filtered by workspace_id, as before, and ready for partitioning by it.
alter table requests drop constraint requests_workspace_id_fkey;
alter table requests drop constraint requests_organization_id_fkey;
alter table response_cache drop constraint response_cache_workspace_id_fkey;
alter table usage drop constraint usage_workspace_id_fkey;
alter table usage drop constraint usage_organization_id_fkey;
alter table traces drop constraint traces_workspace_id_fkey;
alter table traces drop constraint traces_organization_id_fkey;
alter table audit_log drop constraint audit_log_workspace_id_fkey;
alter table audit_log drop constraint audit_log_organization_id_fkey;
