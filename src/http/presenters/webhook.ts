import type { DeliveryRow, EndpointRow } from '../../webhooks/store.js';

/** An endpoint as listed and fetched: never its secret. */
export function presentWebhookEndpoint(row: EndpointRow) {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    description: row.description,
    enabled: row.enabled,
    disabled_reason: row.disabled_reason,
    failing_since: row.failing_since?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** The answer to a create or a rotation: the only ones that carry the secret. */
export function presentWebhookEndpointWithSecret(row: EndpointRow, secret: string) {
  return {
    ...presentWebhookEndpoint(row),
    secret,
    ...(row.previous_secret_until && row.previous_secret_until > new Date()
      ? { previous_secret_signs_until: row.previous_secret_until.toISOString() }
      : {}),
  };
}

export function presentWebhookDelivery(row: DeliveryRow) {
  return {
    id: row.id,
    event_id: row.event_id,
    event_type: row.event_type,
    status: row.status,
    attempts: row.attempts,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    last_response: row.last_response,
    next_attempt_at: row.next_attempt_at?.toISOString() ?? null,
    delivered_at: row.delivered_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
  };
}
