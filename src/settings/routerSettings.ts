import type { Pool, Queryable } from '../db/pool.js';
import type { AuditEntry } from '../audit/store.js';
import { withTransaction } from '../db/transaction.js';
import { ApiError, egressRefused, validationFailed, noFieldErrors, type FieldErrors } from '../errors.js';
import type { Catalog } from '../gateway/catalog.js';
import type { RouterSettingsUpdate } from '../generated/openapi.js';
import { actedBy, recordAudit } from '../audit/entries.js';
import { announceChange } from '../tenancy/changes.js';
import { setNonEuAcceptance, type Principal, type WorkspaceSettings } from '../tenancy/store.js';
import { readRouterSettings, type RouterSettingsState, saveWorkspaceSettings } from './store.js';

// The workspace routing policy and the organization's non-EU acceptance, as GET/PUT
// /v1/settings/router read and change them. Each change is audited (who, and old → new) in the
// transaction that makes it.

/** What the settings change has to reach: the principals cached by this process's key resolver. */
export interface PrincipalCache {
  forgetWorkspace(workspaceId: string): void;
  forgetOrganization(organizationId: string): void;
}

export interface RouterSettingsDeps {
  pool: Pool;
  catalog: Catalog;
  keys: PrincipalCache;
}

/** The API's field names, used in 422 paths and in the audit entry's list of changes. */
const FIELDS = {
  allowedProviders: 'allowed_providers',
  allowedModels: 'allowed_models',
  firewallDefault: 'firewall_default',
  firewallLanguage: 'firewall_language',
  cacheEnabled: 'cache_enabled',
  extractionModel: 'extraction_model',
} as const satisfies Record<keyof WorkspaceSettings, string>;

export function getRouterSettings(pool: Pool, principal: Principal): Promise<RouterSettingsState> {
  return readRouterSettings(pool, principal);
}

export async function updateRouterSettings(
  deps: RouterSettingsDeps,
  principal: Principal,
  update: RouterSettingsUpdate,
): Promise<RouterSettingsState> {
  // The acceptance binds the whole organization, so a key scoped to one workspace may not give it.
  if (update.non_eu_acceptance !== undefined && principal.kind !== 'organization') {
    throw new ApiError({
      status: 403,
      message: `recording or withdrawing the organization's non-EU routing acceptance needs an organization key; this is a restricted key`,
      type: 'permission_error',
      code: 'insufficient_scope',
    });
  }
  const requested = checkAgainstCatalog(deps.catalog, update);

  const outcome = await withTransaction(deps.pool, async (db) => {
    const before = await readRouterSettings(db, principal, { lock: true });
    const settings: WorkspaceSettings = { ...before.settings, ...requested };
    checkExtractionModelAllowed(settings, update);

    let acceptance = before.acceptance;
    const wasAccepted = before.acceptance.acceptedAt !== null;
    const acceptanceChanged =
      (update.non_eu_acceptance === 'record' && !wasAccepted) || (update.non_eu_acceptance === 'withdraw' && wasAccepted);
    if (acceptanceChanged) {
      const recording = update.non_eu_acceptance === 'record';
      const state = await setNonEuAcceptance(db, principal.organizationId, recording ? principal.keyId : null);
      if (!recording) {
        await switchFirewallBackOn(db, principal.organizationId, actedBy(principal).actor);
        settings.firewallDefault = requested.firewallDefault ?? true;
        before.settings.firewallDefault = true;
      }
      acceptance = { acceptedAt: state.non_eu_accepted_at, acceptedBy: state.non_eu_accepted_by };
      // Organization-wide (workspace_id null), as the operator CLI writes it: every workspace's log shows it.
      await recordAudit(db, {
        ...actedBy(principal),
        workspace_id: null,
        action: recording ? 'non_eu_acceptance.recorded' : 'non_eu_acceptance.withdrawn',
        target: principal.organizationId,
        details: recording
          ? { by: principal.keyId, workspace_id: principal.workspaceId }
          : {
              workspace_id: principal.workspaceId,
              previous: { accepted_at: before.acceptance.acceptedAt?.toISOString() ?? null, accepted_by: before.acceptance.acceptedBy },
            },
      });
    }

    // Without the firewall, personal data reaches the provider unmasked: that is what the
    // acceptance is about, so the default may only be switched off while it is in force, and
    // withdrawing it switches every workspace's default back on (switchFirewallBackOn).
    if (update.firewall_default === false && acceptance.acceptedAt === null) {
      throw egressRefused(
        `firewall_default: false would send personal data to providers unmasked; the organization has not recorded the non-EU routing acceptance (an organization key records it with "non_eu_acceptance": "record")`,
      );
    }

    const changes = changesBetween(before.settings, settings);
    let updatedAt = before.updatedAt;
    if (Object.keys(changes).length > 0) {
      updatedAt = await saveWorkspaceSettings(db, principal, settings);
      await recordAudit(db, {
        ...actedBy(principal),
        action: 'settings.router.updated',
        target: principal.workspaceId,
        details: { changes },
      });
    }
    // Every web process drops its cached principals of the organization (the acceptance) or the
    // workspace (its settings) when this commits.
    if (acceptanceChanged) await announceChange(db, { kind: 'organization', id: principal.organizationId });
    else if (Object.keys(changes).length > 0) await announceChange(db, { kind: 'workspace', id: principal.workspaceId });
    return { state: { settings, updatedAt, acceptance }, settingsChanged: Object.keys(changes).length > 0, acceptanceChanged };
  });

  // Requests carry the settings and the acceptance in their cached principal. This process drops
  // the stale ones now, so its next request reads the change; other processes when the NOTIFY
  // sent with it reaches them (tenancy/changes.ts).
  if (outcome.acceptanceChanged) deps.keys.forgetOrganization(principal.organizationId);
  else if (outcome.settingsChanged) deps.keys.forgetWorkspace(principal.workspaceId);
  return outcome.state;
}

/** The fields of the update as settings, checked against the catalogue; lists lose duplicates. */
function checkAgainstCatalog(catalog: Catalog, update: RouterSettingsUpdate): Partial<WorkspaceSettings> {
  const errors: FieldErrors = noFieldErrors();
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  const requested: Partial<WorkspaceSettings> = {};

  if (update.allowed_providers !== undefined) {
    const list = update.allowed_providers;
    if (list !== null && list.length === 0) {
      add('allowed_providers', 'must name at least one provider; null allows every provider of the catalogue');
    }
    list?.forEach((id, index) => {
      if (!catalog.providers.has(id)) {
        add(`allowed_providers.${index}`, `unknown provider "${id}"; the catalogue has ${[...catalog.providers.keys()].join(', ')}`);
      }
    });
    requested.allowedProviders = list === null ? null : [...new Set(list)];
  }

  if (update.allowed_models !== undefined) {
    const list = update.allowed_models;
    if (list !== null && list.length === 0) {
      add('allowed_models', 'must name at least one model; null allows every model of the catalogue');
    }
    list?.forEach((id, index) => {
      if (catalog.models.has(id)) return;
      const alias = catalog.aliases.get(id);
      // The policy is checked against the models an alias expands to, so it lists models.
      add(
        `allowed_models.${index}`,
        alias ? `"${id}" is an alias; list its models instead: ${alias.join(', ')}` : `unknown model "${id}"; GET /v1/models lists them`,
      );
    });
    requested.allowedModels = list === null ? null : [...new Set(list)];
  }

  if (update.extraction_model !== undefined) {
    const id = update.extraction_model;
    const model = id === null ? undefined : catalog.models.get(id);
    if (id !== null && !model) add('extraction_model', `unknown model "${id}"; GET /v1/models lists them`);
    if (model && model.type !== 'chat') add('extraction_model', `"${id}" is an ${model.type} model; facts are extracted by a chat model`);
    requested.extractionModel = id;
  }

  if (update.firewall_default !== undefined) requested.firewallDefault = update.firewall_default;
  if (update.firewall_language !== undefined) requested.firewallLanguage = update.firewall_language;
  if (update.cache_enabled !== undefined) requested.cacheEnabled = update.cache_enabled;

  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  return requested;
}

/** The extraction model runs under the workspace's policy too, so the policy must allow it. */
function checkExtractionModelAllowed(settings: WorkspaceSettings, update: RouterSettingsUpdate): void {
  const model = settings.extractionModel;
  if (model === null || settings.allowedModels === null || settings.allowedModels.includes(model)) return;
  const field = update.allowed_models !== undefined ? 'allowed_models' : 'extraction_model';
  throw validationFailed({
    [field]: [`the extraction model "${model}" would not be allowed; add it to allowed_models or change extraction_model`],
  });
}

/** Old → new of every field that changed, under the API's field names. */
/**
 * Withdrawing the non-EU acceptance switches the firewall default back on in every workspace of
 * the organization that had it off, each change audited: their chats go on, masked, rather than
 * being refused until someone switches each default back (a request that sends firewall: false
 * is still refused).
 */
export async function switchFirewallBackOn(db: Queryable, organizationId: string, actor: AuditEntry['actor']): Promise<void> {
  const { rows } = await db.query<{ workspace_id: string }>(
    `update workspace_settings set firewall_default = true, updated_at = now()
      where organization_id = $1 and not firewall_default
     returning workspace_id`,
    [organizationId],
  );
  for (const { workspace_id } of rows) {
    await recordAudit(db, {
      organization_id: organizationId,
      workspace_id,
      actor,
      action: 'settings.router.updated',
      target: workspace_id,
      details: { changes: { firewall_default: { from: false, to: true } }, because: 'non_eu_acceptance.withdrawn' },
    });
  }
}

function changesBetween(before: WorkspaceSettings, after: WorkspaceSettings): Record<string, { from: unknown; to: unknown }> {
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const [key, field] of Object.entries(FIELDS) as [keyof WorkspaceSettings, string][]) {
    if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) changes[field] = { from: before[key], to: after[key] };
  }
  return changes;
}
