-- Prompt-cache billing: a provider that writes the prompt to its cache (Anthropic's
-- cache_creation_input_tokens) bills those tokens at the catalogue's cache_write price. The tokens
-- read from the cache are the existing cached_tokens; prompt_tokens still counts every prompt token,
-- so uncached = prompt_tokens - cached_tokens - cache_write_tokens.
alter table usage add column cache_write_tokens integer not null default 0;
alter table traces add column cache_write_tokens integer not null default 0;
