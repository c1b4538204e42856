import { api, currentKey, signOut } from './api.js';
import { confirmDialog, formDialog, secretDialog } from './dialog.js';
import { append, errorBox, field, focusFormAfter, focusRedrawn, h, loadMore, loading, pageHead, table, toast, uid } from './dom.js';
import { credits, int, time } from './format.js';

export const title = 'API keys';

const SCOPES = [
  ['chat.create', 'Chat completions'],
  ['embeddings.create', 'Embeddings'],
  ['memory.read', 'Read memory (and retrieval in chats)'],
  ['memory.write', 'Write memory (documents, facts, threads)'],
  ['traces.read', 'Read traces and scores'],
  ['scores.write', 'Score traces'],
  ['audit.read', 'Read the audit log'],
  ['usage.read', 'Read usage'],
  ['settings.write', 'Router settings'],
  // Only an organization key may manage keys, whatever a restricted key's scopes: offered only
  // where a key already holds it, so that it can be taken away.
  ['keys.write', 'Has no effect on a restricted key: only an organization key may manage keys'],
  ['webhooks.read', 'Read webhooks'],
  ['webhooks.write', 'Manage webhooks'],
];

// The four limits, each blank for none. `whole`: rates are whole numbers; credits take decimals.
const LIMITS = [
  { name: 'requests_per_minute', label: 'Requests per minute', unit: 'req/min', whole: true },
  { name: 'tokens_per_minute', label: 'Tokens per minute', unit: 'tok/min', whole: true },
  { name: 'credits_per_day', label: 'Credits per day (UTC)', unit: 'credits/day', whole: false },
  { name: 'credits_per_month', label: 'Credits per month (UTC)', unit: 'credits/month', whole: false },
];
const PAGE_SIZE = 50;

export async function render(view) {
  view.append(
    pageHead(
      'API keys',
      'Every key of your organization, in all its workspaces: create restricted or organization keys, set their limits and expiry, and revoke them. Only an organization key may manage keys. Changes apply within seconds, and are written to the audit log.',
    ),
  );
  const status = h('p', { class: 'muted', role: 'status' }, 'Loading the keys…');
  const listSection = h('section', { class: 'card', 'aria-labelledby': 'keys-h' }, h('h2', { id: 'keys-h' }, 'Keys'), status);
  const createSection = h('section', { class: 'card', 'aria-labelledby': 'create-key-h' }, loading('…'));
  // The list first: most visits are to look a key up, edit or revoke it.
  view.append(listSection, createSection);

  // The service refuses a restricted key here whatever its scopes, keys.write too: it is told
  // so, rather than to find a key with a scope that would not help. (When the key cannot be
  // read, the list is asked for and the service's answer shown.)
  const signedIn = await currentKey().catch(() => undefined);
  if (signedIn?.kind === 'restricted') {
    createSection.remove();
    const lacks = signedIn.scopes.includes('keys.write') ? '' : 'This key lacks the scope keys.write, but that alone would not do: ';
    status.replaceWith(
      h(
        'p',
        { class: 'alert error', role: 'alert', 'data-needs-organization-key': '' },
        `${lacks}${lacks ? 'managing' : 'Managing'} API keys needs an organization key. This console is signed in with a restricted key, which may not list, create, edit or revoke keys whatever its scopes. Sign in with an organization key to manage keys.`,
      ),
    );
    return;
  }
  thisKeyId = signedIn?.id;
  let page;
  try {
    page = await api('/keys', { query: { limit: PAGE_SIZE } });
  } catch (err) {
    createSection.remove();
    status.replaceWith(errorBox(err, 'The keys could not be loaded.'));
    return;
  }
  const reload = () => {
    view.replaceChildren();
    return render(view);
  };
  createSection.replaceChildren(...createForm(page.data, reload));
  listKeys(listSection, status, page, reload);
}

// ---- values in and out of the forms ------------------------------------------------------

/** A limit input's value: null when blank; throws a message naming the field when it is no number. */
function limitValue(input, limit) {
  const raw = input.value.trim();
  input.removeAttribute('aria-invalid');
  if (raw === '') return null;
  const value = Number(raw);
  const ok = limit.whole ? /^\d+$/.test(raw) && value > 0 : /^\d+(\.\d+)?$/.test(raw) && value > 0;
  if (!ok) {
    input.setAttribute('aria-invalid', 'true');
    throw new Error(`${limit.label}: enter ${limit.whole ? 'a whole number' : 'a number'} above 0, or leave it empty for no limit.`);
  }
  return value;
}

function limitInputs(current) {
  return LIMITS.map((limit) =>
    h('input', {
      type: 'text',
      name: limit.name,
      inputmode: limit.whole ? 'numeric' : 'decimal',
      autocomplete: 'off',
      value: current?.[limit.name] ?? '',
      placeholder: 'No limit',
    }),
  );
}

function limitsFieldset(inputs) {
  return h(
    'fieldset',
    null,
    h('legend', null, 'Limits'),
    h('p', { class: 'hint' }, 'Leave a field empty for no limit at the key’s level. The workspace’s and the organization’s limits apply as well.'),
    h('div', { class: 'limit-grid' }, LIMITS.map((limit, i) => field(limit.label, inputs[i]))),
  );
}

function readLimits(inputs) {
  return Object.fromEntries(LIMITS.map((limit, i) => [limit.name, limitValue(inputs[i], limit)]));
}

/** A datetime-local value (the browser's local time) as an ISO instant, or null when blank. */
function expiryValue(input) {
  const raw = input.value.trim();
  if (raw === '') return null;
  const date = new Date(raw);
  if (Number.isNaN(date.getTime())) throw new Error('Expires: enter a date and time, or leave it empty for never.');
  return date.toISOString();
}

/** An ISO instant as a datetime-local value in the browser's local time. */
function localInputValue(iso) {
  if (!iso) return '';
  const date = new Date(iso);
  const pad = (n) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

function scopeChecks(chosen) {
  const offered = SCOPES.filter(([scope]) => scope !== 'keys.write' || chosen.includes(scope));
  const boxes = offered.map(([scope]) => h('input', { type: 'checkbox', name: 'scopes', value: scope, checked: chosen.includes(scope), id: uid('scope') }));
  const grid = h(
    'div',
    { class: 'check-grid' },
    offered.map(([scope, label], i) => h('label', { class: 'check', for: boxes[i].id }, boxes[i], h('span', null, h('code', null, scope), ' ', h('span', { class: 'muted small-text' }, label)))),
  );
  return { boxes, grid, chosen: () => boxes.filter((b) => b.checked).map((b) => b.value) };
}

// ---- create ------------------------------------------------------------------------------

function createForm(keys, reload) {
  const workspaces = [...new Set(keys.map((k) => k.workspace.name))].sort();
  const listId = uid('workspaces');
  const name = h('input', { type: 'text', name: 'name', autocomplete: 'off', maxlength: '120', required: true });
  const workspace = h('input', { type: 'text', name: 'workspace', autocomplete: 'off', spellcheck: 'false', list: listId, required: true });
  const kind = h(
    'select',
    { name: 'kind' },
    h('option', { value: 'restricted', selected: true }, 'Restricted: only the scopes ticked below'),
    h('option', { value: 'organization' }, 'Organization: every scope, and may manage keys'),
  );
  const scopes = scopeChecks(['chat.create']);
  const syncKind = () => {
    const organization = kind.value === 'organization';
    for (const box of scopes.boxes) box.disabled = organization;
    scopes.grid.setAttribute('aria-disabled', String(organization));
  };
  kind.addEventListener('change', syncKind);
  syncKind();
  const limits = limitInputs();
  const expires = h('input', { type: 'datetime-local', name: 'expires_at' });
  const feedback = h('div', { 'aria-live': 'polite' });
  const submit = h('button', { type: 'submit' }, 'Create key');

  const form = h(
    'form',
    {
      'aria-label': 'Create an API key',
      novalidate: true,
      onsubmit: async (event) => {
        event.preventDefault();
        feedback.replaceChildren();
        let body;
        try {
          if (!name.value.trim()) throw new Error('Name: give the key a name, to tell it apart.');
          if (!workspace.value.trim()) throw new Error('Workspace: name the workspace the key acts in.');
          body = { workspace: workspace.value.trim(), name: name.value.trim(), kind: kind.value, limits: readLimits(limits) };
          if (kind.value === 'restricted') body.scopes = scopes.chosen();
          const expiresAt = expiryValue(expires);
          if (expiresAt) body.expires_at = expiresAt;
        } catch (err) {
          feedback.append(h('div', { class: 'alert error', role: 'alert' }, err.message));
          return;
        }
        submit.disabled = true;
        try {
          const created = await api('/keys', { method: 'POST', body });
          await showSecret(created.data);
          toast(`The key “${created.data.name}” is created.`);
          await reload();
          focusFormAfter('create-key-h');
        } catch (err) {
          submit.disabled = false;
          feedback.append(errorBox(err, 'The key was not created.'));
        }
      },
    },
    h('div', { class: 'grid-2 key-form-grid' }, field('Name', name, 'What the key is for, e.g. “Helpdesk bot”.'), field('Workspace', workspace, 'The workspace the key acts in (its name or id); a new name creates it.')),
    h('datalist', { id: listId }, workspaces.map((w) => h('option', { value: w }))),
    field('Kind', kind),
    h('fieldset', null, h('legend', null, 'Scopes (restricted keys)'), scopes.grid),
    limitsFieldset(limits),
    field('Expires (optional)', expires, 'In your local time. Empty: never. An expired key is refused with a message saying so.'),
    feedback,
    h('div', { class: 'form-actions' }, submit),
  );
  return [h('h2', { id: 'create-key-h' }, 'Create a key'), form];
}

/** The new secret, shown this once (dialog.js: closing it removes the secret from the page). */
function showSecret(key) {
  return secretDialog({
    title: 'Copy the new key now',
    intro: [`The key “${key.name}” is created. `, h('strong', null, 'This is the only time its secret is shown:'), ' only a hash of it is kept, and nobody can show it again. Store it where its user will find it, such as a secrets manager.'],
    label: 'New API key',
    secret: key.key,
  });
}

// ---- list, edit, revoke ------------------------------------------------------------------

function describeLimits(limits) {
  const set = LIMITS.filter((limit) => limits[limit.name] !== null);
  if (set.length === 0) return h('span', { class: 'muted' }, 'None');
  return set.map((limit) => h('span', { class: 'kv', 'data-limit': limit.name }, `${limit.whole ? int(limits[limit.name]) : credits(limits[limit.name])} ${limit.unit}`));
}

function keyState(key) {
  if (key.revoked_at) return h('span', { class: 'badge bad', 'data-state': 'revoked' }, 'Revoked');
  if (key.expires_at && Date.parse(key.expires_at) <= Date.now()) return h('span', { class: 'badge warn', 'data-state': 'expired' }, 'Expired');
  return h('span', { class: 'badge ok', 'data-state': 'active' }, 'Active');
}

const labelOf = (key) => key.name ?? `${key.prefix}…${key.last4 ?? ''}`;

/** The id of the key this console is signed in with (GET /v1/key), read when the page loads. */
let thisKeyId;
const isThisKey = (key) => thisKeyId !== undefined && key.id === thisKeyId;

/** A small "label value" line inside a merged cell. */
function line(label, value) {
  return h('span', { class: 'kv' }, h('span', { class: 'k' }, `${label} `), value);
}

function listKeys(section, status, page, reload) {
  // Seven columns, so that Status and the actions fit the page at 1280 px: the name with the
  // key's ends, the kind with its scopes, and its dates, each share a cell.
  const columns = [
    {
      label: 'Key',
      class: 'key-cell',
      cell: (k) => [
        k.name ? h('span', { class: 'key-name' }, k.name) : h('span', { class: 'muted' }, '(no name)'),
        isThisKey(k) ? [' ', h('span', { class: 'badge eu', 'data-this-key': '', title: 'The key this console is signed in with' }, 'this key')] : null,
        h('br'),
        h('code', { title: 'The first and last characters of the secret' }, `${k.prefix}…${k.last4 ?? ''}`),
        // The audit log's Actor and Router settings name a key by its id: shown short as they do.
        h('br'),
        h('span', { class: 'muted small-text' }, 'id ', h('code', { class: 'key-id', title: k.id }, k.id.slice(0, 8))),
      ],
    },
    { label: 'Workspace', class: 'wrap-cell', cell: (k) => k.workspace.name },
    {
      label: 'Access',
      class: 'scopes-cell',
      cell: (k) => [
        h('span', { class: 'key-kind' }, k.kind),
        h('br'),
        k.kind === 'organization' ? h('span', { class: 'muted' }, 'Every scope') : k.scopes.length ? k.scopes.map((s) => h('span', { class: 'tag' }, s)) : h('span', { class: 'muted' }, 'No scopes'),
      ],
    },
    { label: 'Limits', class: 'limits-cell', cell: (k) => describeLimits(k.limits) },
    {
      label: 'Used · expires',
      class: 'dates-cell',
      cell: (k) => [
        line('Last used', k.last_used_at ? time(k.last_used_at) : h('span', { class: 'muted' }, 'never')),
        line('Expires', k.expires_at ? time(k.expires_at) : h('span', { class: 'muted' }, 'never')),
      ],
    },
    { label: 'Status', cell: keyState },
    {
      label: 'Actions',
      cell: (k) =>
        k.revoked_at
          ? h('span', { class: 'muted small-text' }, 'Revoked ', time(k.revoked_at))
          : h(
              'div',
              { class: 'row-actions' },
              h('button', { type: 'button', class: 'secondary small', 'data-action': 'edit', 'aria-label': `Edit ${labelOf(k)}`, onclick: () => editKey(k, reload) }, 'Edit'),
              h('button', { type: 'button', class: 'danger-outline small', 'aria-label': `Revoke ${labelOf(k)}…`, onclick: () => revokeKey(k, reload) }, 'Revoke…'),
            ),
    },
  ];
  const rows = table({ caption: 'API keys', stack: true, columns, rows: page.data, empty: 'No keys yet.' });
  for (const [i, tr] of [...rows.tbody.children].entries()) if (page.data[i]) tr.dataset.keyId = page.data[i].id;
  const more = loadMore({
    page,
    fetchPage: (cursor) => api('/keys', { query: { limit: PAGE_SIZE, cursor } }),
    addRows: (keys) => {
      const before = rows.tbody.children.length;
      rows.add(keys);
      keys.forEach((k, i) => {
        const tr = rows.tbody.children[before + i];
        if (tr) tr.dataset.keyId = k.id;
      });
    },
    status,
    describe: (shown, more) => `${shown} key${shown === 1 ? '' : 's'}${more ? ' (more available)' : ''}.`,
    errorsTo: section,
  });
  append(section, rows.el, h('div', { class: 'list-foot' }, h('span', { class: 'muted small-text' }, 'Secrets are never shown here: only their first and last characters.'), more));
}

async function editKey(key, reload) {
  const name = h('input', { type: 'text', name: 'name', value: key.name ?? '', autocomplete: 'off', maxlength: '120' });
  const scopes = key.kind === 'restricted' ? scopeChecks(key.scopes) : null;
  const limits = limitInputs(key.limits);
  const expires = h('input', { type: 'datetime-local', name: 'expires_at', value: localInputValue(key.expires_at) });
  const body = [
    field('Name', name),
    scopes ? h('fieldset', null, h('legend', null, 'Scopes'), scopes.grid) : h('p', { class: 'muted' }, 'An organization key holds every scope.'),
    limitsFieldset(limits),
    field('Expires', expires, 'In your local time. Empty: never.'),
  ];
  const updated = await formDialog({
    title: `Edit “${labelOf(key)}”`,
    body,
    submitLabel: 'Save changes',
    errorBox: (err) => errorBox(err, 'The key was not changed.'),
    wide: true,
    submit: async () => {
      // Only what changed is sent: the audit entry then lists exactly the changes.
      const change = {};
      const newName = name.value.trim();
      if (newName && newName !== key.name) change.name = newName;
      if (scopes) {
        const chosen = scopes.chosen();
        if (chosen.length !== key.scopes.length || chosen.some((s) => !key.scopes.includes(s))) change.scopes = chosen;
      }
      const newLimits = readLimits(limits);
      if (LIMITS.some((limit) => newLimits[limit.name] !== key.limits[limit.name])) change.limits = newLimits;
      const newExpiry = expiryValue(expires);
      if (localInputValue(newExpiry) !== localInputValue(key.expires_at)) change.expires_at = newExpiry;
      if (Object.keys(change).length === 0) return 'unchanged';
      return (await api(`/keys/${encodeURIComponent(key.id)}`, { method: 'PATCH', body: change })).data;
    },
  });
  if (!updated) return;
  toast(updated === 'unchanged' ? 'Nothing changed.' : `The key “${labelOf(updated)}” is changed. It applies within seconds.`);
  if (updated === 'unchanged') return;
  await reload();
  const row = `#keys-h ~ .table-wrap tr[data-key-id="${CSS.escape(key.id)}"]`;
  // A key beyond the first page is not drawn again: its table then.
  focusRedrawn(`${row} [data-action="edit"]`, '#keys-h ~ .table-wrap');
}

async function revokeKey(key, reload) {
  const self = isThisKey(key);
  const confirmed = await confirmDialog({
    title: `Revoke “${labelOf(key)}”?`,
    body: [
      self
        ? h('p', { class: 'alert error', 'data-this-key': '' }, h('strong', null, 'This is the key this console is signed in with. '), 'Revoking it signs you out at once; you will need another organization key to sign in again.')
        : null,
      h('p', null, 'Every request with this key is refused (401) from now on — in this service at once, everywhere within seconds. A revoked key cannot be restored: its users will need a new key.'),
      h('p', { class: 'muted small-text' }, `Workspace ${key.workspace.name}, key ${key.prefix}…${key.last4 ?? ''}. The revocation is written to the audit log.`),
    ],
    confirmLabel: self ? 'Revoke this key and sign out' : 'Revoke key',
    danger: true,
  });
  if (!confirmed) return;
  try {
    await api(`/keys/${encodeURIComponent(key.id)}`, { method: 'DELETE' });
    if (self) {
      signOut(`You revoked “${labelOf(key)}”, the key this console was signed in with, so you are signed out. Sign in with another key.`);
      return;
    }
    toast(`The key “${labelOf(key)}” is revoked.`);
    await reload();
    // Its buttons are gone with it: the row, which now says it is revoked.
    focusRedrawn(`#keys-h ~ .table-wrap tr[data-key-id="${CSS.escape(key.id)}"]`, '#keys-h ~ .table-wrap');
  } catch (err) {
    document.getElementById('keys-h')?.after(errorBox(err, 'The key was not revoked.'));
  }
}
