import type { Queryable } from '../db/pool.js';
import type { MicrosecondPosition } from '../http/cursor.js';
import { limitsFromColumns, type LimitColumns, type Limits } from '../limits/limits.js';
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

/** The workspace_settings columns as a query returns them: null columns (or no row) take the defaults. */
export interface SettingsColumns {
  allowed_providers: string[] | null;
  allowed_models: string[] | null;
  firewall_default: boolean | null;
  firewall_language: WorkspaceSettings['firewallLanguage'] | null;
  cache_enabled: boolean | null;
  extraction_model: string | null;
}

export function settingsFromColumns(row: SettingsColumns): WorkspaceSettings {
  return {
    allowedProviders: row.allowed_providers,
    allowedModels: row.allowed_models,
    firewallDefault: row.firewall_default ?? true,
    firewallLanguage: row.firewall_language ?? 'auto',
    cacheEnabled: row.cache_enabled ?? true,
    extractionModel: row.extraction_model,
  };
}

export interface Principal {
  keyId: string;
  /** null for keys made before keys had names (the CLI names them only with --name). */
  keyName: string | null;
  kind: KeyKind;
  scopes: Scope[];
  /** The key's own limits; the workspace's and the organization's apply as well. */
  keyLimits: Limits;
  organizationId: string;
  workspaceId: string;
  /** The organization recorded its acceptance of routing outside the EU. */
  nonEuAccepted: boolean;
  settings: WorkspaceSettings;
}

export interface KeyRow extends LimitColumns {
  id: string;
  organization_id: string;
  workspace_id: string;
  workspace_name: string;
  name: string | null;
  key_prefix: string;
  /** null for keys made before the last four characters were kept. */
  key_last4: string | null;
  kind: KeyKind;
  scopes: Scope[];
  expires_at: Date | null;
  last_used_at: Date | null;
  created_at: Date;
  revoked_at: Date | null;
}

/** Where a page of keys ended: creation time in microseconds (a JS Date would drop them), then id. */
export type KeyPosition = MicrosecondPosition;

// Every column a key is shown with; `k` is api_keys, `w` its workspace. Never the hash.
const KEY_COLUMNS = `k.id, k.organization_id, k.workspace_id, w.name as workspace_name, k.name, k.key_prefix,
  k.key_last4, k.kind, k.scopes, k.requests_per_minute, k.tokens_per_minute, k.credits_per_day,
  k.credits_per_month, k.expires_at, k.last_used_at, k.created_at, k.revoked_at`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An id from a path or a body that cannot name a row is answered like an unknown one, without a query. */
export function isKeyId(id: string): boolean {
  return UUID.test(id);
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
  return (await ensureWorkspace(db, organizationId, name)).id;
}

/** The workspace of this name, made when absent; `created` only for the call that made it (of several at once too). */
export async function ensureWorkspace(db: Queryable, organizationId: string, name: string): Promise<{ id: string; created: boolean }> {
  const { rows } = await db.query<{ id: string; created: boolean }>(
    `insert into workspaces (organization_id, name) values ($1, $2)
     on conflict (organization_id, name) do update set name = excluded.name
     returning id, (xmax = 0) as created`,
    [organizationId, name],
  );
  return rows[0]!;
}

/**
 * Why a workspace cannot be named so, or undefined: a name is what the API and the console name it
 * by, so it holds no blank ends, no control character, at most 255 characters, and not only spaces.
 */
export function workspaceNameProblem(name: string): string | undefined {
  if (name.trim() === '' || /^[\s\u200B-\u200D\u2060\uFEFF\u00AD]*$/u.test(name)) return 'must name a workspace (not only spaces or invisible characters)';
  if (name !== name.trim()) return 'must not begin or end with a space';
  if (/\p{Cc}/u.test(name)) return 'must not hold a control character (a line break, a tab)';
  if (name.length > 255) return 'must be at most 255 characters';
  return undefined;
}

export async function findOrganizationByName(db: Queryable, name: string): Promise<{ id: string } | undefined> {
  const { rows } = await db.query<{ id: string }>('select id from organizations where name = $1', [name]);
  return rows[0];
}

export interface NewApiKey {
  organizationId: string;
  workspaceId: string;
  hash: Buffer;
  prefix: string;
  last4: string;
  kind: KeyKind;
  scopes: Scope[];
  name: string | null;
  limits: Limits;
  expiresAt: Date | null;
}

export async function insertApiKey(db: Queryable, key: NewApiKey): Promise<KeyRow> {
  const { rows } = await db.query<KeyRow>(
    `with k as (
       insert into api_keys (organization_id, workspace_id, key_hash, key_prefix, key_last4, kind, scopes, name,
                             requests_per_minute, tokens_per_minute, credits_per_day, credits_per_month, expires_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
       returning *
     )
     select ${KEY_COLUMNS} from k join workspaces w on w.id = k.workspace_id`,
    [
      key.organizationId,
      key.workspaceId,
      key.hash,
      key.prefix,
      key.last4,
      key.kind,
      key.scopes,
      key.name,
      key.limits.requests_per_minute,
      key.limits.tokens_per_minute,
      key.limits.credits_per_day,
      key.limits.credits_per_month,
      key.expiresAt,
    ],
  );
  return rows[0]!;
}

/** The workspace of the organization with this id or, failing that, this name. */
export async function findWorkspaceOfOrganization(
  db: Queryable,
  organizationId: string,
  idOrName: string,
): Promise<{ id: string; name: string } | undefined> {
  const { rows } = await db.query<{ id: string; name: string }>(
    `select id, name from workspaces
      where organization_id = $1 and (id = $2::uuid or name = $3)
      order by id = $2::uuid desc
      limit 1`,
    [organizationId, isKeyId(idOrName) ? idOrName : null, idOrName],
  );
  return rows[0];
}

/** A live key as the resolver caches it: the principal, and when the key stops working. */
export interface KeyByHash {
  principal: Principal;
  expiresAt: Date | null;
}

/**
 * The unrevoked key with this hash, with what every request needs to know about its organization
 * and workspace (the non-EU acceptance, the routing settings), or undefined. An expired key is
 * returned too, so that its caller can be told it expired.
 *
 * The same statement keeps last_used_at, at most once a minute per key: the resolver runs it only
 * when a key is not in its cache (every few seconds while the key is in use), and the condition
 * makes all but one of those a read, so usage costs no write per request.
 */
export async function findKeyByHash(db: Queryable, hash: Buffer): Promise<KeyByHash | undefined> {
  const { rows } = await db.query<
    LimitColumns & SettingsColumns & {
      id: string;
      name: string | null;
      kind: KeyKind;
      scopes: Scope[];
      organization_id: string;
      workspace_id: string;
      expires_at: Date | null;
      non_eu_accepted: boolean;
    }
  >(
    `with used as (
       update api_keys set last_used_at = now()
        where key_hash = $1 and revoked_at is null
          and (expires_at is null or expires_at > now())
          and (last_used_at is null or last_used_at < now() - interval '1 minute')
     )
     select k.id, k.name, k.kind, k.scopes, k.organization_id, k.workspace_id, k.expires_at,
            k.requests_per_minute, k.tokens_per_minute, k.credits_per_day, k.credits_per_month,
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
    expiresAt: row.expires_at,
    principal: {
      keyId: row.id,
      keyName: row.name,
      kind: row.kind,
      scopes: row.scopes,
      keyLimits: limitsFromColumns(row),
      organizationId: row.organization_id,
      workspaceId: row.workspace_id,
      nonEuAccepted: row.non_eu_accepted,
      settings: settingsFromColumns(row),
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

/** When the key was revoked: null for a live key, undefined when there is no such key. */
export async function findKeyRevokedAt(db: Queryable, keyId: string): Promise<Date | null | undefined> {
  const { rows } = await db.query<{ revoked_at: Date | null }>('select revoked_at from api_keys where id = $1', [keyId]);
  return rows[0]?.revoked_at;
}

/** A workspace's settings, the defaults where it has no row (for work done with no key: jobs). */
export async function findWorkspaceSettings(db: Queryable, workspaceId: string): Promise<WorkspaceSettings> {
  const { rows } = await db.query<SettingsColumns>(
    `select s.allowed_providers, s.allowed_models, s.firewall_default, s.firewall_language, s.cache_enabled, s.extraction_model
       from (select 1) as one
       left join workspace_settings s on s.workspace_id = $1`,
    [workspaceId],
  );
  return settingsFromColumns(rows[0]!);
}

/** Every key of the organization, oldest first (the operator CLI's listing). */
export async function listKeysOfOrganization(db: Queryable, organizationId: string): Promise<KeyRow[]> {
  const { rows } = await db.query<KeyRow>(
    `select ${KEY_COLUMNS}
       from api_keys k
       join workspaces w on w.id = k.workspace_id
      where k.organization_id = $1
      order by k.created_at, k.id`,
    [organizationId],
  );
  return rows;
}

/** One page of the organization's keys, revoked ones included, newest first. */
export async function listKeyPage(
  db: Queryable,
  organizationId: string,
  page: { after?: KeyPosition; limit: number },
): Promise<(KeyRow & { position_us: string })[]> {
  const { rows } = await db.query<KeyRow & { position_us: string }>(
    `select ${KEY_COLUMNS},
            (extract(epoch from k.created_at) * 1000000)::bigint::text as position_us
       from api_keys k
       join workspaces w on w.id = k.workspace_id
      where k.organization_id = $1
        and ($2::bigint is null
             or (k.created_at, k.id) < ('epoch'::timestamptz + $2::bigint * interval '1 microsecond', $3::uuid))
      order by k.created_at desc, k.id desc
      limit $4`,
    [organizationId, page.after?.us ?? null, page.after?.id ?? null, page.limit],
  );
  return rows;
}

/** The organization's key with this id (revoked or not); `lock` holds it for a change. */
export async function findKeyOfOrganization(
  db: Queryable,
  organizationId: string,
  keyId: string,
  { lock = false } = {},
): Promise<KeyRow | undefined> {
  if (!isKeyId(keyId)) return undefined;
  const { rows } = await db.query<KeyRow>(
    `select ${KEY_COLUMNS}
       from api_keys k
       join workspaces w on w.id = k.workspace_id
      where k.organization_id = $1 and k.id = $2
      ${lock ? 'for update of k' : ''}`,
    [organizationId, keyId],
  );
  return rows[0];
}

/** What a key's owner may change after creation. */
export interface KeyChange {
  name: string | null;
  scopes: Scope[];
  limits: Limits;
  expiresAt: Date | null;
}

export async function saveKeyChange(db: Queryable, organizationId: string, keyId: string, change: KeyChange): Promise<KeyRow> {
  const { rows } = await db.query<KeyRow>(
    `with k as (
       update api_keys
          set name = $3, scopes = $4, requests_per_minute = $5, tokens_per_minute = $6,
              credits_per_day = $7, credits_per_month = $8, expires_at = $9
        where organization_id = $1 and id = $2
        returning *
     )
     select ${KEY_COLUMNS} from k join workspaces w on w.id = k.workspace_id`,
    [
      organizationId,
      keyId,
      change.name,
      change.scopes,
      change.limits.requests_per_minute,
      change.limits.tokens_per_minute,
      change.limits.credits_per_day,
      change.limits.credits_per_month,
      change.expiresAt,
    ],
  );
  return rows[0]!;
}

/** Revokes the organization's live key; returns it, or undefined when it is not live. */
export async function revokeKeyOfOrganization(db: Queryable, organizationId: string, keyId: string): Promise<KeyRow | undefined> {
  if (!isKeyId(keyId)) return undefined;
  const { rows } = await db.query<KeyRow>(
    `with k as (
       update api_keys set revoked_at = now()
        where organization_id = $1 and id = $2 and revoked_at is null
        returning *
     )
     select ${KEY_COLUMNS} from k join workspaces w on w.id = k.workspace_id`,
    [organizationId, keyId],
  );
  return rows[0];
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
