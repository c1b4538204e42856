import { api } from './api.js';
import { errorBox, field, h, loadMore, pageHead, table } from './dom.js';
import { json, time } from './format.js';

export const title = 'Audit log';

const ACTIONS = [
  ['', 'All actions'],
  ['chat.completion', 'Chat completion'],
  ['embeddings.create', 'Embeddings'],
  ['score.created', 'Score created'],
  ['settings.router.updated', 'Router settings changed'],
  ['non_eu_acceptance.recorded', 'Non-EU acceptance recorded'],
  ['non_eu_acceptance.withdrawn', 'Non-EU acceptance withdrawn'],
  ['memory.erased', 'End-user erased'],
  ['api_key.created', 'API key created'],
  ['api_key.revoked', 'API key revoked'],
];
const PAGE_SIZE = 50;

/** Details as "name: value" lines: nested objects by dotted names, lists of plain values joined. */
function details(value) {
  const lines = [];
  const walk = (prefix, v, depth) => {
    if (v && typeof v === 'object' && !Array.isArray(v) && depth < 3 && Object.keys(v).length > 0) {
      for (const [k, inner] of Object.entries(v)) walk(prefix ? `${prefix}.${k}` : k, inner, depth + 1);
    } else if (Array.isArray(v) && v.every((x) => x === null || typeof x !== 'object')) {
      lines.push([prefix, v.length ? v.join(', ') : '(none)']);
    } else {
      lines.push([prefix, typeof v === 'string' ? v : json(v)]);
    }
  };
  if (value && typeof value === 'object') walk('', value, 0);
  if (lines.length === 0) return '–';
  return lines.map(([k, v]) => h('span', { class: 'kv' }, h('span', { class: 'k' }, `${k}: `), h('span', { class: 'v' }, v)));
}

function actor(entry) {
  const { kind, key_id: keyId } = entry.actor;
  if (kind === 'operator') return 'operator (CLI)';
  return h('span', null, `${kind} key `, keyId ? h('code', { title: keyId }, keyId.slice(0, 8)) : '');
}

export async function render(view, route) {
  const action = route.params.get('action') ?? '';
  const known = ACTIONS.some(([value]) => value === action);
  const select = h(
    'select',
    { name: 'action', onchange: () => route.navigate(route.hrefOf('audit', [], { action: select.value })) },
    ACTIONS.map(([value, label]) => h('option', { value, selected: value === action }, label)),
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
