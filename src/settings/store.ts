import type { Queryable } from '../db/pool.js';
import { settingsFromColumns, type SettingsColumns, type WorkspaceSettings } from '../tenancy/store.js';

// SQL for the workspace routing settings (workspace_settings) and the organization's non-EU
// acceptance as the settings page shows them. The CLI's acceptance writes live in tenancy/store.ts.

export interface NonEuAcceptanceState {
  acceptedAt: Date | null;
  acceptedBy: string | null;
}

export interface RouterSettingsState {
  settings: WorkspaceSettings;
  /** null while the workspace runs on the defaults (no row yet). */
  updatedAt: Date | null;
  acceptance: NonEuAcceptanceState;
}

interface StateRow extends SettingsColumns {
  non_eu_accepted_at: Date | null;
  non_eu_accepted_by: string | null;
  has_row: boolean;
  updated_at: Date | null;
}

// The defaults when a workspace has no row are those applied to each request.
function stateOf(row: StateRow): RouterSettingsState {
  return {
    settings: settingsFromColumns(row),
    updatedAt: row.updated_at,
    acceptance: { acceptedAt: row.non_eu_accepted_at, acceptedBy: row.non_eu_accepted_by },
  };
}

/**
 * The workspace's settings and its organization's acceptance. With `lock`, the organization row
 * is locked for the rest of the transaction: every settings change of the organization then runs
 * one after the other, so the audited "old" values are the ones really replaced, and a
 * firewall_default change cannot race a withdrawal of the acceptance.
 */
export async function readRouterSettings(
  db: Queryable,
  scope: { organizationId: string; workspaceId: string },
  { lock = false } = {},
): Promise<RouterSettingsState> {
  const { rows } = await db.query<StateRow>(
    `select o.non_eu_accepted_at, o.non_eu_accepted_by,
            s.allowed_providers, s.allowed_models, s.firewall_default, s.firewall_language, s.cache_enabled,
            s.extraction_model, s.updated_at
       from organizations o
       left join workspace_settings s on s.workspace_id = $2 and s.organization_id = o.id
      where o.id = $1
      ${lock ? 'for update of o' : ''}`,
    [scope.organizationId, scope.workspaceId],
  );
  const row = rows[0];
  if (!row) throw new Error(`organization ${scope.organizationId} of an authenticated key is missing`);
  return stateOf(row);
}

/** Writes the workspace's whole settings row (inserted on its first change); returns updated_at. */
export async function saveWorkspaceSettings(
  db: Queryable,
  scope: { organizationId: string; workspaceId: string },
  settings: WorkspaceSettings,
): Promise<Date> {
  const { rows } = await db.query<{ updated_at: Date }>(
    `insert into workspace_settings (workspace_id, organization_id, allowed_providers, allowed_models, firewall_default,
                                     firewall_language, cache_enabled, extraction_model, updated_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, now())
     on conflict (workspace_id) do update
        set allowed_providers = excluded.allowed_providers,
            allowed_models = excluded.allowed_models,
            firewall_default = excluded.firewall_default,
            firewall_language = excluded.firewall_language,
            cache_enabled = excluded.cache_enabled,
            extraction_model = excluded.extraction_model,
            updated_at = excluded.updated_at
      where workspace_settings.organization_id = excluded.organization_id
     returning updated_at`,
    [
      scope.workspaceId,
      scope.organizationId,
      settings.allowedProviders,
      settings.allowedModels,
      settings.firewallDefault,
      settings.firewallLanguage,
      settings.cacheEnabled,
      settings.extractionModel,
    ],
  );
  return rows[0]!.updated_at;
}
