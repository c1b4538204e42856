import { createHmac, randomBytes } from 'node:crypto';

// Standard Webhooks (https://www.standardwebhooks.com): receivers verify with the
// `standardwebhooks` or `svix` libraries unchanged. The secret is `whsec_` + base64 of its bytes;
// the signature is HMAC-SHA256 over "{webhook-id}.{webhook-timestamp}.{body}" keyed with those bytes.

const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 24;

export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
}

function signature(secret: string, content: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(content).digest('base64')}`;
}

/**
 * The three headers of one attempt. Every secret given signs (space-separated), so that during a
 * rotation a receiver still holding the old secret verifies as well as one holding the new.
 */
export function signedHeaders(
  secrets: readonly string[],
  message: { id: string; timestamp: Date; body: string },
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  const seconds = Math.floor(message.timestamp.getTime() / 1000).toString();
  const content = `${message.id}.${seconds}.${message.body}`;
  return {
    'webhook-id': message.id,
    'webhook-timestamp': seconds,
    'webhook-signature': secrets.map((secret) => signature(secret, content)).join(' '),
  };
}
