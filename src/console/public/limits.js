import { api, ApiError } from './api.js';
import { append, errorBox, h, toast, uid } from './dom.js';
import { credits, int, time } from './format.js';

// The Limits panel of the settings page: the workspace's limits and, for an organization key,
// the organization's, each with what has been used in its current window. One form saves both;
// only a scope whose limits changed is sent (each change is its own audit entry).

/** The four limits; `used` names the window's use in GET /settings/limits. Rates are whole numbers. */
export const LIMITS = [
  { name: 'requests_per_minute', label: 'Requests per minute', used: 'requests_this_minute', noun: 'requests', window: 'this minute', whole: true },
  { name: 'tokens_per_minute', label: 'Tokens per minute', used: 'tokens_this_minute', noun: 'tokens', window: 'this minute', whole: true },
  { name: 'credits_per_day', label: 'Credits per day (UTC)', used: 'credits_today', noun: 'credits', window: 'today', whole: false },
  { name: 'credits_per_month', label: 'Credits per month (UTC)', used: 'credits_this_month', noun: 'credits', window: 'this month', whole: false },
];

const SCOPES = [
  { kind: 'workspace', legend: 'This workspace', hint: 'All keys of this workspace together.' },
  { kind: 'organization', legend: 'The organization', hint: 'All workspaces of the organization together.' },
];

const amount = (limit, n) => (limit.whole ? int(n) : credits(n));

/** "42 of 60 requests this minute", or "42 requests this minute, no limit". */
export function useText(limit, used, value) {
  const figure = amount(limit, used ?? 0);
  return value === null || value === undefined
    ? `${figure} ${limit.noun} ${limit.window}, no limit`
    : `${figure} of ${amount(limit, value)} ${limit.noun} ${limit.window}`;
}

/** The number a limit field holds: null when empty; undefined when it is not a number at all. */
function parseLimit(raw) {
  const text = raw.trim();
  if (text === '') return null;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(text)) return undefined;
  const value = Number(text);
  return Number.isFinite(value) ? value : undefined;
}

/**
 * The panel, from GET /settings/limits's answer. Here only what is no number at all (or no whole
 * number, for a rate) is caught, so that it is never sent as something else; whether a number is
 * allowed (above 0, within range, not below the smallest credit) is the API's to say, and its 422
 * field errors are shown next to the fields.
 */
export function limitsPanel(initial) {
  const section = h('section', { class: 'card limits-panel', 'aria-labelledby': 'limits-h' });
  let state = initial;
  let loadedAt = new Date().toISOString();

  const draw = () => {
    const feedback = h('div', { 'aria-live': 'polite' });
    const fields = new Map(); // "workspace.credits_per_day" → {input, error, limit, kind}

    const scopeFieldset = (scope) => {
      const current = state[scope.kind];
      const cells = LIMITS.map((limit) => {
        const path = `${scope.kind}.${limit.name}`;
        const input = h('input', {
          type: 'text',
          id: uid('limit'),
          name: path,
          inputmode: limit.whole ? 'numeric' : 'decimal',
          autocomplete: 'off',
          placeholder: 'No limit',
          value: current.limits[limit.name] ?? '',
        });
        const use = h('span', { class: 'hint limit-use', id: uid('use'), 'data-use': limit.name }, useText(limit, current.used[limit.used], current.limits[limit.name]));
        const error = h('p', { class: 'field-error', id: uid('err'), hidden: true });
        input.setAttribute('aria-describedby', use.id);
        fields.set(path, { input, use, error, limit, kind: scope.kind });
        return h('div', { class: 'field' }, h('label', { for: input.id }, limit.label), input, use, error);
      });
      return h(
        'fieldset',
        { 'data-scope': scope.kind },
        h('legend', null, scope.legend),
        h('p', { class: 'hint' }, scope.hint, ' Use is as of ', time(loadedAt), '.'),
        h('div', { class: 'limit-grid' }, cells),
      );
    };

    const showError = (entry, message) => {
      entry.error.textContent = message;
      entry.error.hidden = false;
      entry.input.setAttribute('aria-invalid', 'true');
      entry.input.setAttribute('aria-describedby', `${entry.use.id} ${entry.error.id}`);
    };
    const clearErrors = () => {
      feedback.replaceChildren();
      for (const entry of fields.values()) {
        entry.error.textContent = '';
        entry.error.hidden = true;
        entry.input.removeAttribute('aria-invalid');
        entry.input.setAttribute('aria-describedby', entry.use.id);
      }
    };
    const focusFirstInvalid = () => [...fields.values()].find((e) => !e.error.hidden)?.input.focus();

    const shown = SCOPES.filter((scope) => state[scope.kind]);
    const save = h('button', { type: 'submit' }, 'Save limits');
    const form = h(
      'form',
      {
        'aria-label': 'Limits',
        novalidate: true,
        onsubmit: async (event) => {
          event.preventDefault();
          clearErrors();
          const body = {};
          let invalid = false;
          for (const scope of shown) {
            const next = {};
            for (const limit of LIMITS) {
              const entry = fields.get(`${scope.kind}.${limit.name}`);
              const value = parseLimit(entry.input.value);
              if (value === undefined || (limit.whole && value !== null && !Number.isInteger(value))) {
                invalid = true;
                showError(entry, `Enter ${limit.whole ? 'a whole number' : 'a number'}, or leave it empty for no limit.`);
              }
              next[limit.name] = value ?? null;
            }
            if (LIMITS.some((limit) => next[limit.name] !== state[scope.kind].limits[limit.name])) body[scope.kind] = next;
          }
          if (invalid) {
            feedback.append(h('div', { class: 'alert error', role: 'alert' }, h('strong', null, 'The limits were not saved.'), ' Check the fields marked below.'));
            focusFirstInvalid();
            return;
          }
          if (Object.keys(body).length === 0) {
            feedback.append(h('div', { class: 'alert info' }, 'Nothing changed.'));
            return;
          }
          save.disabled = true;
          try {
            state = await api('/settings/limits', { method: 'PUT', body });
            loadedAt = new Date().toISOString();
            draw();
            toast('Limits saved. They apply within seconds.');
            document.getElementById('limits-h')?.focus();
          } catch (err) {
            save.disabled = false;
            feedback.append(saveError(err, fields, showError));
            focusFirstInvalid();
          }
        },
      },
      shown.map(scopeFieldset),
      state.organization
        ? null
        : h('p', { class: 'muted small-text', 'data-organization': 'hidden' }, 'The organization’s limits are shown and set only with an organization key.'),
      feedback,
      h('div', { class: 'form-actions' }, save),
    );

    section.replaceChildren(
      h('h2', { id: 'limits-h', tabindex: '-1' }, 'Limits and budgets'),
      h(
        'p',
        { class: 'muted' },
        'Rates per minute and credit budgets per UTC day and month, checked before a request reaches a provider: over a rate the API answers 429, over a budget 402. They apply together with each key’s own limits (on the ',
        h('a', { href: '#/keys' }, 'Keys'),
        ' page). Leave a field empty for no limit. A change applies within seconds and is written to the audit log.',
      ),
      form,
    );
  };

  draw();
  return section;
}

/** The alert for a refused save; a 422's field errors also go next to their fields. */
function saveError(err, fields, showError) {
  const errors = err instanceof ApiError && err.status === 422 ? err.body?.errors : null;
  if (!errors || typeof errors !== 'object') {
    const box = errorBox(err, 'The limits were not saved.');
    if (err instanceof ApiError && err.status === 403) box.dataset.status = '403';
    return box;
  }
  const elsewhere = [];
  for (const [path, messages] of Object.entries(errors)) {
    const entry = fields.get(path);
    const text = [].concat(messages).join('; ');
    if (entry) showError(entry, `${entry.limit.label} ${text}`);
    else elsewhere.push([path, text]);
  }
  const box = h('div', { class: 'alert error', role: 'alert', 'data-status': '422' }, h('strong', null, 'The limits were not saved.'), ' ');
  append(box, elsewhere.length === 0 ? 'The service refused the values marked below.' : err.friendly);
  if (elsewhere.length) append(box, h('ul', null, elsewhere.map(([path, text]) => h('li', null, h('code', null, path), ' ', text))));
  if (err.requestId) append(box, h('span', { class: 'request-id' }, 'Request id: ', h('code', null, err.requestId)));
  return box;
}
