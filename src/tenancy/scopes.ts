export const SCOPES = [
  'chat.create',
  'embeddings.create',
  'memory.read',
  'memory.write',
  'traces.read',
  'scores.write',
  'audit.read',
  'usage.read',
  'settings.write',
  'keys.write',
  'webhooks.read',
  'webhooks.write',
] as const;

export type Scope = (typeof SCOPES)[number];
export type KeyKind = 'organization' | 'restricted';

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
