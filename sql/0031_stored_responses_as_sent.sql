-- Stored responses are handed back as the caller sent them and as they were answered (CONTRACT.md):
-- json keeps the text, key order included (a JSON schema's property order is the order a model
-- writes the fields in); jsonb reorders keys. Nothing reads into them by index.
alter table stored_responses
  alter column input type json using input::json,
  alter column response type json using response::json;
