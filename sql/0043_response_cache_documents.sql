-- A cached answer that documents were retrieved into holds their text (the model's answer quotes
-- it). Deleting a document or its collection must take such answers out, as forgetting a fact takes
-- out those its fact_ids name (sql/0022): each entry now names the documents of its passages.
alter table response_cache add column document_ids uuid[];
create index response_cache_documents_idx on response_cache using gin (document_ids) where document_ids is not null;
