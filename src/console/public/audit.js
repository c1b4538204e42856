import { api } from './api.js';
import { errorBox, field, h, loadMore, pageHead, table } from './dom.js';
import { json, time } from './format.js';

export const title = 'Audit log';

// Every action the service writes, by area (grep "action: '" in src, and the budget and limits
// entries written in SQL and template strings). An action not listed here is still shown.
const ACTION_GROUPS = [
  [
    'Requests',
    [
      ['chat.completion', 'Chat completion'],
      ['embeddings.create', 'Embeddings'],
      ['score.created', 'Score created'],
    ],
  ],
  [
    'Memory',
    [
      ['document.ingested', 'Document ingested'],
      ['document.deleted', 'Document deleted'],
      ['collection.deleted', 'Collection deleted'],
      ['facts.extracted', 'Facts extracted'],
      ['fact.forgotten', 'Fact forgotten'],
      ['thread.deleted', 'Thread deleted'],
      ['memory.erased', 'End-user erased'],
    ],
  ],
  [
    'Settings and limits',
    [
      ['settings.router.updated', 'Router settings changed'],
      ['non_eu_acceptance.recorded', 'Non-EU acceptance recorded'],
      ['non_eu_acceptance.withdrawn', 'Non-EU acceptance withdrawn'],
      ['limits.workspace.updated', 'Workspace limits changed'],
      ['limits.organization.updated', 'Organization limits changed'],
      ['budget.threshold', 'Budget reached 80 % or 100 %'],
    ],
  ],
  [
    'API keys',
    [
      ['api_key.created', 'API key created'],
      ['api_key.updated', 'API key changed'],
      ['api_key.revoked', 'API key revoked'],
    ],
  ],
  [
    'Webhooks',
    [
      ['webhook.created', 'Endpoint added'],
      ['webhook.updated', 'Endpoint changed'],
      ['webhook.secret_rotated', 'Signing secret rotated'],
      ['webhook.disabled', 'Endpoint disabled by the service'],
      ['webhook.deleted', 'Endpoint deleted'],
    ],
  ],
];
const ACTIONS = ACTION_GROUPS.flatMap(([, actions]) => actions);
const PAGE_SIZE = 50;

const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isChange = (v) => isPlainObject(v) && Object.keys(v).length === 2 && 'from' in v && 'to' in v;

/** One value as text: plain values as they are, lists of plain values joined, null as "none". */
function plain(v) {
  if (v === null || v === undefined) return 'none';
  if (typeof v === 'string') return v === '' ? '(empty)' : v;
  if (Array.isArray(v) && v.every((x) => x === null || typeof x !== 'object')) return v.length ? v.map(plain).join(', ') : '(none)';
  if (typeof v !== 'object') return String(v);
  return null;
}

/**
 * Details as "name: value" lines, at any depth: nested objects and lists of objects by dotted
 * names (changes.limits.requests_per_minute), a change {from, to} as "old → new".
 */
function details(value) {
  const lines = [];
  const walk = (prefix, v) => {
    const text = plain(v);
    if (text !== null) lines.push([prefix, text]);
    else if (isChange(v)) {
      const from = plain(v.from);
      const to = plain(v.to);
      if (from !== null && to !== null) lines.push([prefix, `${from} → ${to}`]);
      else {
        walk(`${prefix}.from`, v.from);
        walk(`${prefix}.to`, v.to);
      }
    } else {
      const entries = Array.isArray(v) ? v.map((x, i) => [String(i), x]) : Object.entries(v);
      if (entries.length === 0) lines.push([prefix, '(none)']);
      for (const [k, inner] of entries) walk(prefix ? `${prefix}.${k}` : k, inner);
    }
  };
  if (isPlainObject(value)) for (const [k, inner] of Object.entries(value)) walk(k, inner);
  if (lines.length === 0) return '–';
  return lines.map(([k, v]) => h('span', { class: 'kv' }, h('span', { class: 'k' }, `${k}: `), h('span', { class: 'v' }, v)));
}

const ACTOR_KINDS = {
  operator: 'operator (CLI)',
  service: 'service (background work)',
  organization: 'organization key',
  restricted: 'restricted key',
};

function actor(entry) {
  const { kind, key_id: keyId } = entry.actor;
  const label = ACTOR_KINDS[kind] ?? kind;
  return h('span', null, keyId ? [`${label} `, h('code', { title: keyId }, keyId.slice(0, 8))] : label);
}

export async function render(view, route) {
  const action = route.params.get('action') ?? '';
  const known = action === '' || ACTIONS.some(([value]) => value === action);
  const select = h(
    'select',
    { name: 'action', onchange: () => route.navigate(route.hrefOf('audit', [], { action: select.value })) },
    h('option', { value: '', selected: action === '' }, 'All actions'),
    ACTION_GROUPS.map(([group, actions]) =>
      h(
        'optgroup',
        { label: group },
        actions.map(([value, label]) => h('option', { value, selected: value === action }, label)),
      ),
    ),
    known ? null : h('option', { value: action, selected: true }, action),
  );
  const refresh = h('button', { type: 'button', class: 'secondary', onclick: () => refreshView(view, route) }, 'Refresh');
  view.append(
    pageHead('Audit log', 'Who did what, with which key, and where it was routed — for this workspace and its organization. Newest first.'),
    h('form', { class: 'card toolbar', 'aria-label': 'Filter the audit log', onsubmit: (e) => e.preventDefault() }, field('Action', select), refresh),
  );
  const status = h('p', { class: 'muted', role: 'status' }, 'Loading the audit log…');
  const section = h('section', { class: 'card', 'aria-labelledby': 'audit-h' }, h('h2', { id: 'audit-h' }, 'Entries'), status);
  view.append(section);

  const query = { action, limit: PAGE_SIZE };
  let page;
  try {
    page = await api('/audit-log', { query });
  } catch (err) {
    status.replaceWith(errorBox(err, 'The audit log could not be loaded.'));
    return;
  }
  const entries = table({
    caption: 'Audit log entries',
    stack: true,
    columns: [
      { label: 'Time', cell: (e) => time(e.at) },
      { label: 'Action', cell: (e) => h('code', { class: 'audit-action' }, e.action) },
      { label: 'Actor', cell: actor },
      { label: 'Target', cell: (e) => (e.target ? h('code', null, e.target) : '–') },
      { label: 'Details', class: 'details-cell', cell: (e) => details(e.details) },
    ],
    rows: page.data,
    empty: action ? 'No entries with this action.' : 'No entries yet.',
  });
  const more = loadMore({
    page,
    fetchPage: (cursor) => api('/audit-log', { query: { ...query, cursor } }),
    addRows: (rows) => entries.add(rows),
    status,
    describe: (shown, more) => `${shown} entr${shown === 1 ? 'y' : 'ies'}${more ? ' (more available)' : ''}.`,
    errorsTo: section,
  });
  section.append(entries.el, h('div', { class: 'list-foot' }, h('span'), more));
}

function refreshView(view, route) {
  view.replaceChildren();
  const done = render(view, route);
  view.querySelector('h1')?.focus();
  return done;
}
