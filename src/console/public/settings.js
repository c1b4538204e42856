import { api, currentKey } from './api.js';
import { confirmDialog } from './dialog.js';
import { errorBox, field, h, loading, pageHead, toast, uid } from './dom.js';
import { time } from './format.js';
import { limitsPanel } from './limits.js';

export const title = 'Router settings';

const LANGUAGES = [
  ['auto', 'Detect per message'],
  ['nl', 'Dutch'],
  ['en', 'English'],
  ['fr', 'French'],
  ['de', 'German'],
];

// What the acceptance allows, as points; the service's own statement is shown verbatim with it.
const ALLOWS = [
  'Models and providers outside the EU (region “external”) may be used, by every workspace of the organization — not only this one.',
  'A model offered both in and outside the EU then goes to whichever of its providers comes first in the catalogue.',
  'The firewall may be switched off (per request, or as this workspace’s default), which sends personal data to the provider unmasked.',
  'Workspaces can still keep to EU providers with their allowed providers and models.',
  'Recording and withdrawing are both written to the audit log, with the key that did it.',
];

export async function render(view) {
  view.append(pageHead('Router settings', 'Which providers and models this workspace may use, how personal data is masked, the response cache, the organization’s acceptance of routing outside the EU, and the limits and budgets of the workspace and the organization.'));
  const body = h('div', null, loading('Loading the settings…'));
  view.append(body);
  // Loaded side by side; each part shows on its own, so one failing does not hide the other.
  const [router, limits, self] = await Promise.allSettled([Promise.all([api('/settings/router'), api('/models')]), api('/settings/limits'), currentKey()]);
  const limitsPart =
    limits.status === 'fulfilled'
      ? limitsPanel(limits.value)
      : sameRefusal(router, limits)
        ? null // a key without settings.write: one alert says so
        : h('section', { class: 'card', 'aria-labelledby': 'limits-h' }, h('h2', { id: 'limits-h' }, 'Limits and budgets'), errorBox(limits.reason, 'The limits could not be loaded.'));
  if (router.status === 'rejected') {
    body.replaceChildren(errorBox(router.reason, 'The settings could not be loaded.'), ...(limitsPart ? [limitsPart] : []));
    return;
  }
  const [settings, models] = router.value;
  // Only an organization key may record or withdraw the acceptance (GET /v1/key says which kind
  // this is); when it could not be read, the button stays and the service says no to a restricted key.
  const organizationKey = self.status === 'fulfilled' ? self.value.kind === 'organization' : null;
  const acceptance = h('div');
  const policy = h('div');
  const draw = (state) => {
    acceptance.replaceChildren(acceptanceSection(state, draw, organizationKey));
    policy.replaceChildren(policyForm(state, models.data, draw));
  };
  draw(settings);
  body.replaceChildren(acceptance, policy, ...(limitsPart ? [limitsPart] : []));
}

/** Both loads refused for the same reason (e.g. the key lacks settings.write). */
function sameRefusal(a, b) {
  return a.status === 'rejected' && b.status === 'rejected' && a.reason?.status === b.reason?.status && a.reason?.code === b.reason?.code;
}

function acceptanceSection(state, redraw, organizationKey) {
  const a = state.non_eu_acceptance;
  const firewallOn = state.firewall_default;
  const feedback = h('div', { 'aria-live': 'polite' });
  // Without the acceptance, a workspace whose firewall default is off has every chat refused that
  // does not ask for the firewall itself. Withdrawing switches every default back on, so this is
  // only a state left from before that rule.
  const blocked = !a.accepted && !firewallOn;
  const stateLine = a.accepted
    ? h('p', { class: 'acceptance-state' }, h('span', { class: 'badge warn' }, 'Accepted'), ' Routing outside the EU is allowed since ', time(a.accepted_at), a.accepted_by ? ` (recorded by ${a.accepted_by})` : '', '.')
    : h(
        'p',
        { class: 'acceptance-state' },
        h('span', { class: 'badge eu' }, 'Not accepted'),
        firewallOn ? ' Nothing leaves the EU: only EU providers are used, and the firewall is on.' : ' Nothing leaves the EU: only EU providers are used.',
      );

  const switchOn = async (button) => {
    button.disabled = true;
    try {
      const next = await api('/settings/router', { method: 'PUT', body: { firewall_default: true } });
      redraw(next);
      toast('The firewall is on again: chats are answered.');
      document.getElementById('acceptance-h')?.focus();
    } catch (err) {
      button.disabled = false;
      feedback.replaceChildren(errorBox(err, 'The firewall was not switched on.'));
    }
  };
  const refusedWarning = blocked
    ? h(
        'div',
        { class: 'alert error', role: 'alert', 'data-warning': 'firewall-off' },
        h('strong', null, 'Chats are refused.'),
        ' This workspace’s firewall default is off, which needs the acceptance: every chat request that does not set “firewall”: true itself is refused (403 egress_refused) until the firewall is switched back on.',
        h('div', { class: 'form-actions' }, h('button', { type: 'button', onclick: (event) => switchOn(event.currentTarget) }, 'Switch the firewall back on')),
      )
    : null;

  const button = h(
    'button',
    {
      type: 'button',
      class: a.accepted ? 'danger-outline' : undefined,
      onclick: async () => {
        const recording = !a.accepted;
        const confirmed = await confirmDialog({
          title: recording ? 'Record the non-EU acceptance?' : 'Withdraw the non-EU acceptance?',
          body: recording
            ? [
                h('p', null, 'Recording it means, for the whole organization:'),
                h('ul', { class: 'allows' }, ALLOWS.slice(0, 3).map((t) => h('li', null, t))),
                h('p', { class: 'muted small-text' }, 'This is written to the audit log. It can be withdrawn at any time.'),
              ]
            : [
                h('p', null, 'Withdrawing restores EU-only routing for every workspace of the organization. Requests that need a provider outside the EU, or that turn the firewall off, will be refused (403) from then on. This is written to the audit log.'),
                h(
                  'p',
                  firewallOn ? null : { class: 'alert warn', 'data-warning': 'firewall-switched-on' },
                  firewallOn
                    ? 'Every workspace whose firewall default is off gets it switched back on (each change audited), so their chats go on, masked.'
                    : 'This workspace’s firewall default is off: withdrawing switches it back on, as in every workspace of the organization (each change audited), so chats go on, masked.',
                ),
              ],
          acknowledge: recording ? 'I have read what the acceptance allows and accept it for the organization.' : undefined,
          confirmLabel: recording ? 'Record acceptance' : 'Withdraw acceptance',
          danger: recording,
        });
        if (!confirmed) return;
        button.disabled = true;
        const body = { non_eu_acceptance: recording ? 'record' : 'withdraw' };
        try {
          const next = await api('/settings/router', { method: 'PUT', body });
          redraw(next);
          toast(
            recording
              ? 'The non-EU acceptance is recorded.'
              : 'The non-EU acceptance is withdrawn. Nothing leaves the EU, and the firewall is on.',
          );
          document.getElementById('acceptance-h')?.focus();
        } catch (err) {
          button.disabled = false;
          feedback.replaceChildren(errorBox(err, recording ? 'The acceptance was not recorded.' : 'The acceptance was not withdrawn.'));
        }
      },
    },
    a.accepted ? 'Withdraw acceptance…' : 'Record acceptance…',
  );

  return h(
    'section',
    { class: `card acceptance ${a.accepted ? 'accepted' : 'not-accepted'}`, 'aria-labelledby': 'acceptance-h', 'data-accepted': String(a.accepted) },
    h('h2', { id: 'acceptance-h', tabindex: '-1' }, 'Routing outside the EU'),
    stateLine,
    refusedWarning,
    h('h3', null, a.accepted ? 'What it allows now' : 'What recording it would allow'),
    h('ul', { class: 'allows' }, ALLOWS.map((t) => h('li', null, t))),
    h('p', { class: 'label' }, 'The service’s statement'),
    h('p', { class: 'statement' }, a.statement),
    organizationKey === false
      ? h('p', { class: 'muted small-text', 'data-acceptance-control': 'hidden' }, 'Only an organization key can record or withdraw it; this console is signed in with a restricted key.')
      : [h('p', { class: 'muted small-text' }, 'Only an organization key can record or withdraw it.'), h('div', { class: 'form-actions' }, button)],
    feedback,
  );
}

function policyForm(state, models, redraw) {
  const chatModels = models.filter((m) => m.type === 'chat');
  const feedback = h('div', { 'aria-live': 'polite' });

  // Providers: free text, since the catalogue's provider ids are not listed by the API.
  const providers = h('input', { type: 'text', name: 'allowed_providers', value: (state.allowed_providers ?? []).join(', '), autocomplete: 'off', spellcheck: 'false' });

  // Models: every model, or only those ticked.
  const group = uid('models');
  const everyModel = h('input', { type: 'radio', name: group, value: 'all', checked: state.allowed_models === null, id: uid('r') });
  const someModels = h('input', { type: 'radio', name: group, value: 'some', checked: state.allowed_models !== null, id: uid('r') });
  const allowed = new Set(state.allowed_models ?? []);
  const boxes = models.map((m) => h('input', { type: 'checkbox', name: 'allowed_models', value: m.id, checked: allowed.has(m.id), id: uid('m') }));
  const grid = h(
    'div',
    { class: 'check-grid' },
    models.map((m, i) =>
      h('label', { class: 'check', for: boxes[i].id }, boxes[i], h('span', null, h('code', null, m.id), ' ', h('span', { class: `badge ${m.region === 'eu' ? 'eu' : 'warn'}` }, m.region === 'eu' ? 'EU' : 'outside EU'), ' ', h('span', { class: 'muted small-text' }, m.type))),
    ),
  );
  const syncModels = () => {
    const off = everyModel.checked;
    for (const box of boxes) box.disabled = off;
    grid.setAttribute('aria-disabled', String(off));
  };
  everyModel.addEventListener('change', syncModels);
  someModels.addEventListener('change', syncModels);
  syncModels();

  const extraction = h(
    'select',
    { name: 'extraction_model' },
    h('option', { value: '', selected: state.extraction_model === null }, 'Service default (rule-based)'),
    chatModels.map((m) => h('option', { value: m.id, selected: state.extraction_model === m.id }, m.id)),
  );
  const firewall = h('input', { type: 'checkbox', name: 'firewall_default', checked: state.firewall_default, id: uid('fw') });
  const language = h('select', { name: 'firewall_language' }, LANGUAGES.map(([v, label]) => h('option', { value: v, selected: state.firewall_language === v }, label)));
  const cache = h('input', { type: 'checkbox', name: 'cache_enabled', checked: state.cache_enabled, id: uid('cache') });
  const save = h('button', { type: 'submit' }, 'Save settings');

  const form = h(
    'form',
    {
      'aria-label': 'Routing policy, firewall and cache',
      onsubmit: async (event) => {
        event.preventDefault();
        feedback.replaceChildren();
        const providerList = providers.value.split(/[\s,]+/).filter(Boolean);
        const next = {
          allowed_providers: providerList.length ? [...new Set(providerList)] : null,
          allowed_models: everyModel.checked ? null : boxes.filter((b) => b.checked).map((b) => b.value),
          extraction_model: extraction.value || null,
          firewall_default: firewall.checked,
          firewall_language: language.value,
          cache_enabled: cache.checked,
        };
        // Only what changed is sent: each change is its own line in the audit log.
        const changes = {};
        for (const [k, v] of Object.entries(next)) if (JSON.stringify(v) !== JSON.stringify(state[k])) changes[k] = v;
        if (Object.keys(changes).length === 0) {
          feedback.append(h('div', { class: 'alert info' }, 'Nothing changed.'));
          return;
        }
        // Every chat of the workspace would leave unmasked: as grave as the acceptance it needs, and asked as plainly.
        if (changes.firewall_default === false) {
          const confirmed = await confirmDialog({
            title: 'Send personal data unmasked?',
            body: [
              h('p', null, 'With the firewall default off, every chat of this workspace that does not ask for the firewall itself reaches its provider with the personal data in it as written: names, e-mail addresses, phone numbers, IBANs.'),
              h('p', { class: 'muted small-text' }, 'This is written to the audit log. It can be switched back on at any time.'),
            ],
            confirmLabel: 'Switch the firewall default off',
            danger: true,
          });
          if (!confirmed) return;
        }
        save.disabled = true;
        try {
          const updated = await api('/settings/router', { method: 'PUT', body: changes });
          redraw(updated);
          toast('Settings saved.');
        } catch (err) {
          save.disabled = false;
          feedback.append(errorBox(err, 'The settings were not saved.'));
        }
      },
    },
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'policy-h' },
      h('h2', { id: 'policy-h' }, 'Routing policy'),
      field('Allowed providers', providers, 'Provider ids separated by commas. Empty allows every provider of the catalogue.'),
      h(
        'fieldset',
        null,
        h('legend', null, 'Allowed models'),
        h('label', { class: 'check', for: everyModel.id }, everyModel, 'Every model in the catalogue'),
        h('label', { class: 'check', for: someModels.id }, someModels, 'Only the models ticked below'),
        grid,
      ),
      field('Fact extraction model', extraction, 'The chat model that turns submitted text into facts.'),
    ),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'firewall-h' },
      h('h2', { id: 'firewall-h' }, 'Firewall'),
      h('label', { class: 'check', for: firewall.id }, firewall, h('span', null, 'Mask personal data before it reaches a provider (the default for chat requests)', h('span', { class: 'hint' }, 'Switching this off sends personal data unmasked, and needs the non-EU acceptance.'))),
      field('Language of the recognizers', language),
    ),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'cache-h' },
      h('h2', { id: 'cache-h' }, 'Response cache'),
      h('label', { class: 'check', for: cache.id }, cache, h('span', null, 'Answer repeated identical requests from the cache', h('span', { class: 'hint' }, 'A cache answer costs no base credits.'))),
    ),
    feedback,
    h('div', { class: 'form-actions' }, save, state.updated_at ? h('span', { class: 'muted small-text' }, 'Last changed ', time(state.updated_at)) : null),
  );
  return form;
}
