import type { Queryable } from '../db/pool.js';
import type { KeyKind, Scope } from './scopes.js';

// SQL for organizations, workspaces and API keys.

export interface WorkspaceSettings {
  /** null: every provider of the catalogue. */
  allowedProviders: string[] | null;
  /** null: every model of the catalogue. */
  allowedModels: string[] | null;
  firewallDefault: boolean;
  firewallLanguage: 'auto' | 'nl' | 'en' | 'fr' | 'de';
  cacheEnabled: boolean;
  extractionModel: string | null;
}

export interface Principal {
  keyId: string;
  kind: KeyKind;
  scopes: Scope[];
  organizationId: string;
  workspaceId: string;
  /** The organization recorded its acceptance of routing outside the EU. */
  nonEuAccepted: boolean;
  settings: WorkspaceSettings;
}

export interface KeyRow {
  id: string;
  organization_id: string;
  workspace_id: string;
  workspace_name: string;
  key_prefix: string;
  kind: KeyKind;
  scopes: Scope[];
  created_at: Date;
  revoked_at: Date | null;
}

export async function upsertOrganization(db: Queryable, name: string): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `insert into organizations (name) values ($1)
     on conflict (name) do update set name = excluded.name
     returning id`,
    [name],
  );
  return rows[0]!.id;
}

export async function upsertWorkspace(db: Queryable, organizationId: string, name: string): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `insert into workspaces (organization_id, name) values ($1, $2)
     on conflict (organization_id, name) do update set name = excluded.name
     returning id`,
    [organizationId, name],
  );
  return rows[0]!.id;
}

export async function findOrganizationByName(db: Queryable, name: string): Promise<{ id: string } | undefined> {
  const { rows } = await db.query<{ id: string }>('select id from organizations where name = $1', [name]);
  return rows[0];
}

export async function insertApiKey(
  db: Queryable,
  key: { organizationId: string; workspaceId: string; hash: Buffer; prefix: string; kind: KeyKind; scopes: Scope[] },
): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `insert into api_keys (organization_id, workspace_id, key_hash, key_prefix, kind, scopes)
     values ($1, $2, $3, $4, $5, $6)
     returning id`,
    [key.organizationId, key.workspaceId, key.hash, key.prefix, key.kind, key.scopes],
  );
  return rows[0]!.id;
}

/**
 * The live (unrevoked) key with this hash, with what every request needs to know about its
 * organization and workspace (the non-EU acceptance, the routing settings), or undefined.
 */
export async function findPrincipalByHash(db: Queryable, hash: Buffer): Promise<Principal | undefined> {
  const { rows } = await db.query<{
    id: string;
    kind: KeyKind;
    scopes: Scope[];
    organization_id: string;
    workspace_id: string;
    non_eu_accepted: boolean;
    allowed_providers: string[] | null;
    allowed_models: string[] | null;
    firewall_default: boolean | null;
    firewall_language: WorkspaceSettings['firewallLanguage'] | null;
    cache_enabled: boolean | null;
    extraction_model: string | null;
  }>(
    `select k.id, k.kind, k.scopes, k.organization_id, k.workspace_id,
            o.non_eu_accepted_at is not null as non_eu_accepted,
            s.allowed_providers, s.allowed_models, s.firewall_default, s.firewall_language,
            s.cache_enabled, s.extraction_model
       from api_keys k
       join organizations o on o.id = k.organization_id
       left join workspace_settings s on s.workspace_id = k.workspace_id
      where k.key_hash = $1 and k.revoked_at is null`,
    [hash],
  );
  const row = rows[0];
  if (!row) return undefined;
  return {
    keyId: row.id,
    kind: row.kind,
    scopes: row.scopes,
    organizationId: row.organization_id,
    workspaceId: row.workspace_id,
    nonEuAccepted: row.non_eu_accepted,
    settings: {
      allowedProviders: row.allowed_providers,
      allowedModels: row.allowed_models,
      firewallDefault: row.firewall_default ?? true,
      firewallLanguage: row.firewall_language ?? 'auto',
      cacheEnabled: row.cache_enabled ?? true,
      extractionModel: row.extraction_model,
    },
  };
}

/** Marks the key revoked; returns it, or undefined when there is no such live key. */
export async function markKeyRevoked(
  db: Queryable,
  keyId: string,
): Promise<{ organization_id: string; workspace_id: string } | undefined> {
  const { rows } = await db.query<{ organization_id: string; workspace_id: string }>(
    `update api_keys set revoked_at = now()
      where id = $1 and revoked_at is null
      returning organization_id, workspace_id`,
    [keyId],
  );
  return rows[0];
}

export async function listKeysOfOrganization(db: Queryable, organizationId: string): Promise<KeyRow[]> {
  const { rows } = await db.query<KeyRow>(
    `select k.id, k.organization_id, k.workspace_id, w.name as workspace_name, k.key_prefix, k.kind,
            k.scopes, k.created_at, k.revoked_at
       from api_keys k
       join workspaces w on w.id = k.workspace_id
      where k.organization_id = $1
      order by k.created_at, k.id`,
    [organizationId],
  );
  return rows;
}

/** Records (by = who) or withdraws (by = null) the organization's non-EU routing acceptance. */
export async function setNonEuAcceptance(
  db: Queryable,
  organizationId: string,
  by: string | null,
): Promise<{ non_eu_accepted_at: Date | null; non_eu_accepted_by: string | null }> {
  const { rows } = await db.query<{ non_eu_accepted_at: Date | null; non_eu_accepted_by: string | null }>(
    `update organizations
        set non_eu_accepted_at = case when $2::text is null then null else now() end,
            non_eu_accepted_by = $2::text
      where id = $1
      returning non_eu_accepted_at, non_eu_accepted_by`,
    [organizationId, by],
  );
  return rows[0]!;
}
