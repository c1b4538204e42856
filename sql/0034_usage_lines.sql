-- One request's work billed to several models or providers (a split embeddings call, a fact
-- extraction that embeds as well) is one request with several lines, all under the request's id.
-- The lines used to take ids of their own (`<id>:<model>@<provider>`), which a caller's id could
-- take first (its line then was never written: work served and not billed) and which GET /usage
-- counted as requests of their own. Older rows keep the ids they were written with.
alter table usage add column line smallint not null default 0;
alter table usage drop constraint usage_pkey;
alter table usage add primary key (workspace_id, request_id, line);
