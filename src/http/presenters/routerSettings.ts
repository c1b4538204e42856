import type { RouterSettingsState } from '../../settings/store.js';

// What the non-EU acceptance allows, in words a privacy officer can sign off on. The settings
// page shows it next to the switch, so it describes the state in force, not the API.
function acceptanceStatement(state: RouterSettingsState): string {
  const { acceptedAt, acceptedBy } = state.acceptance;
  const allows =
    'models and providers outside the EU (region "external" in GET /v1/models) may be used by every workspace of the organization ' +
    '(a model offered both in and outside the EU then goes to whichever of its providers comes first in the catalogue), ' +
    'and the firewall may be switched off (firewall: false in a chat request, or firewall_default: false), ' +
    'which sends personal data to the provider unmasked';
  if (acceptedAt) {
    return (
      `Accepted on ${acceptedAt.toISOString()} by ${acceptedBy ?? 'an unknown actor'}: ${allows}. ` +
      'A workspace can still keep to EU providers with allowed_providers or allowed_models. ' +
      'Withdrawing it (an organization key sends non_eu_acceptance: "withdraw") restores EU-only routing at once, in every web process, and switches the firewall default back on in every workspace that had it off.'
    );
  }
  const unmaskedDefault = state.settings.firewallDefault
    ? ''
    : ' This workspace has firewall_default off, which needs the acceptance: its chat requests that leave the firewall to that default are refused until the acceptance is recorded again or firewall_default is switched back on.';
  return (
    `Not accepted: nothing leaves the EU. Only providers in the EU are used, and the firewall cannot be switched off. ` +
    `Recording it (an organization key sends non_eu_acceptance: "record") would mean: ${allows}.${unmaskedDefault}`
  );
}

export function presentRouterSettings(state: RouterSettingsState) {
  const { settings, acceptance } = state;
  return {
    allowed_providers: settings.allowedProviders,
    allowed_models: settings.allowedModels,
    firewall_default: settings.firewallDefault,
    firewall_language: settings.firewallLanguage,
    cache_enabled: settings.cacheEnabled,
    extraction_model: settings.extractionModel,
    non_eu_acceptance: {
      accepted: acceptance.acceptedAt !== null,
      accepted_at: acceptance.acceptedAt?.toISOString() ?? null,
      accepted_by: acceptance.acceptedBy,
      statement: acceptanceStatement(state),
    },
    updated_at: state.updatedAt?.toISOString() ?? null,
  };
}
