import { limitsFromColumns } from '../../limits/limits.js';
import type { KeyRow } from '../../tenancy/store.js';

/** A key as GET, PATCH and DELETE show it: never the secret or its hash. */
export function presentKey(row: KeyRow) {
  return {
    id: row.id,
    name: row.name,
    workspace: { id: row.workspace_id, name: row.workspace_name },
    kind: row.kind,
    scopes: row.scopes,
    limits: limitsFromColumns(row),
    prefix: row.key_prefix,
    last4: row.key_last4,
    expires_at: row.expires_at?.toISOString() ?? null,
    last_used_at: row.last_used_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    revoked_at: row.revoked_at?.toISOString() ?? null,
  };
}

/** The answer to a create: the only one that carries the secret. */
export function presentCreatedKey(row: KeyRow, secret: string) {
  return { ...presentKey(row), key: secret };
}
