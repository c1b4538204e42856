-- A replay answers with the body the first request got, byte for byte, as Stripe's idempotent
-- requests do: jsonb kept the answer's values but reordered its keys (shortest first), so a client
-- comparing a retry's body with the first, or hashing it, saw two answers. json keeps the text.
-- Rows written before keep jsonb's order.
alter table requests alter column response type json using response::json;
