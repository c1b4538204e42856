import { api, holdsScope } from './api.js';
import { confirmDialog } from './dialog.js';
import { append, errorBox, field, h, loadMore, loading, pageHead, table, toast } from './dom.js';
import { int, time } from './format.js';
import { forgetEndUser } from './traces.js';

export const title = 'Memory';

const STATUS = { ready: 'ok', queued: 'warn', processing: 'warn', failed: 'bad' };

// The end-user whose facts are shown. A user_ref names a person, so it is kept in this page's
// state, never in the address (which browser history, bookmarks and screenshots keep).
let shownUser = '';

/** On signing out: the next session in this tab must not find the end-user the last one looked at. */
export function forgetShownUser() {
  shownUser = '';
}

// Facts per page: a person's facts may run to thousands, which the page loads as asked.
const FACTS_PAGE = 100;

export async function render(view, route) {
  view.append(pageHead('Memory', 'Document collections with their ingest status, and the long-term facts held about an end-user — with forget and erase.'));
  const collection = route.params.get('collection') ?? '';
  // An old link may still carry ?user=: it is taken into the page, and the address replaced without it.
  if (route.params.has('user')) {
    shownUser = route.params.get('user') ?? '';
    history.replaceState(history.state, '', route.hrefOf('memory', [], { collection }));
  }
  const facts = factsSection(shownUser);
  const docs = h('div', null, loading('Loading collections and documents…'));
  view.append(docs, facts.el);
  await Promise.all([documentsSection(docs, route, collection), facts.load()]);
}

/** How many of each the erasure deleted, e.g. "2 facts, 1 thread, 4 traces, no replays…". */
const STORES = [
  ['facts', 'fact', 'facts'],
  ['submissions', 'fact submission', 'fact submissions'],
  ['threads', 'thread', 'threads'],
  ['traces', 'trace', 'traces'],
  ['replays', 'kept answer for replay', 'kept answers for replay'],
  ['cache_entries', 'cache entry', 'cache entries'],
  ['responses', 'stored response', 'stored responses'],
];

function erasedCounts(deleted) {
  const known = STORES.filter(([key]) => typeof deleted?.[key] === 'number').map(([key, one, many]) => [key, deleted[key] === 1 ? one : many, deleted[key]]);
  // A store the console does not know yet is still counted.
  const other = Object.entries(deleted ?? {})
    .filter(([key, n]) => typeof n === 'number' && !STORES.some(([k]) => k === key))
    .map(([key, n]) => [key, key.replaceAll('_', ' '), n]);
  return [...known, ...other];
}

async function documentsSection(container, route, asked) {
  let collections, page;
  // A link may name a collection deleted since: the page then shows every document, and says so.
  let collection = asked;
  let gone = '';
  try {
    collections = await api('/recall/collections');
    if (collection && !collections.data.some((c) => c.slug === collection)) {
      gone = collection;
      collection = '';
    }
    page = await api('/memory/documents', { query: { collection, limit: 50 } });
  } catch (err) {
    container.replaceChildren(errorBox(err, 'Collections and documents could not be loaded.'));
    return;
  }
  const collectionsTable = table({
    caption: 'Collections',
    narrow: true,
    columns: [
      { label: 'Name', cell: (c) => c.name },
      { label: 'Slug', cell: (c) => h('code', { class: 'wraps' }, c.slug) },
      { label: 'Documents', num: true, cell: (c) => int(c.documents_count) },
    ],
    rows: collections.data,
    empty: 'No collections yet.',
  });

  const select = h(
    'select',
    {
      name: 'collection',
      onchange: () => route.navigate(route.hrefOf('memory', [], { collection: select.value })),
    },
    h('option', { value: '' }, 'All collections'),
    collections.data.map((c) => h('option', { value: c.slug, selected: c.slug === collection }, c.name)),
  );
  const documents = table({
    caption: 'Documents',
    stack: true,
    columns: [
      { label: 'Title', cell: (d) => d.title ?? h('span', { class: 'muted' }, '(untitled)') },
      { label: 'Collection', cell: (d) => (d.collection ? h('code', { class: 'wraps' }, d.collection) : '–') },
      {
        label: 'Status',
        cell: (d) => [
          h('span', { class: `badge ${STATUS[d.status] ?? ''}`, 'data-status': d.status }, d.status),
          d.error ? h('span', { class: 'field-error doc-error' }, d.error) : null,
        ],
      },
      { label: 'Chunks', num: true, cell: (d) => (d.chunk_count === null ? '–' : int(d.chunk_count)) },
      { label: 'Tokens', num: true, cell: (d) => (d.token_count === null ? '–' : int(d.token_count)) },
      { label: 'Added', cell: (d) => time(d.created_at) },
    ],
    rows: page.data,
    empty: collection ? 'No documents in this collection.' : 'No documents yet.',
  });
  let cursor = page.next_cursor;
  const more = h('button', { type: 'button', class: 'secondary', hidden: !cursor }, 'Load more');
  more.addEventListener('click', async () => {
    more.disabled = true;
    try {
      const next = await api('/memory/documents', { query: { collection, limit: 50, cursor } });
      documents.add(next.data);
      cursor = next.next_cursor;
      more.hidden = !cursor;
    } catch (err) {
      more.after(errorBox(err));
    } finally {
      more.disabled = false;
    }
  });
  const refresh = h('button', { type: 'button', class: 'secondary small', onclick: () => documentsSection(container, route, collection) }, 'Refresh');

  container.replaceChildren(
    h(
      'div',
      { class: 'grid-2 memory-grid' },
      h('section', { class: 'card', 'aria-labelledby': 'collections-h' }, h('h2', { id: 'collections-h' }, 'Collections'), collectionsTable.el),
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'documents-h' },
        h('div', { class: 'card-head' }, h('h2', { id: 'documents-h' }, 'Documents'), refresh),
        gone ? h('p', { class: 'alert', role: 'status', 'data-collection-gone': '' }, `The collection “${gone}” no longer exists: every document is shown.`) : null,
        h('form', { class: 'toolbar spaced', onsubmit: (e) => e.preventDefault(), 'aria-label': 'Documents of a collection' }, field('Collection', select)),
        documents.el,
        h('div', { class: 'list-foot' }, h('span', { class: 'muted small-text' }, 'Status: queued → processing → ready, or failed.'), more),
      ),
    ),
  );
}

function factsSection(initialUser) {
  let userRef = initialUser;
  const input = h('input', { type: 'text', name: 'user_ref', value: userRef, autocomplete: 'off', spellcheck: 'false', maxlength: '255' });
  const results = h('div');
  const form = h(
    'form',
    {
      role: 'search',
      'aria-label': 'Facts of an end-user',
      onsubmit: (event) => {
        event.preventDefault();
        userRef = input.value.trim();
        shownUser = userRef;
        load();
      },
    },
    h('div', { class: 'filters' }, field('End-user reference (user_ref)', input, 'Leave empty for the workspace’s shared knowledge.')),
    h('div', { class: 'form-actions' }, h('button', { type: 'submit' }, 'Show facts')),
  );

  /** `focusRow`: after a fact is forgotten, focus goes to the Forget button now at that row. */
  async function load(note, { focusRow } = {}) {
    results.replaceChildren(loading('Loading facts…'));
    let list;
    try {
      list = await api('/recall/facts', { query: { user_ref: userRef, limit: FACTS_PAGE } });
    } catch (err) {
      results.replaceChildren(errorBox(err, 'The facts could not be loaded.'));
      return;
    }
    const who = userRef ? `about “${userRef}”` : 'in the shared knowledge';
    // Forgetting and erasing need memory.write: a key without it is shown no control it cannot use.
    const mayChange = await holdsScope('memory.write').catch(() => true);
    const rows = table({
      caption: userRef ? `Facts about ${userRef}` : 'Shared facts',
      stack: true,
      columns: [
        { label: 'Fact', cell: (f) => f.content },
        { label: 'Added', cell: (f) => time(f.created_at) },
        { label: 'Updated', cell: (f) => time(f.updated_at) },
        mayChange && {
          label: 'Actions',
          cell: (f) =>
            h(
              'button',
              {
                type: 'button',
                class: 'danger-outline small',
                'aria-label': `Forget the fact: ${f.content.slice(0, 80)}`,
                onclick: async () => {
                  const ok = await confirmDialog({
                    title: 'Forget this fact?',
                    body: [h('p', null, 'This fact is deleted and no longer used in answers:'), h('p', { class: 'statement' }, f.content)],
                    confirmLabel: 'Forget fact',
                    danger: true,
                  });
                  if (!ok) return;
                  try {
                    await api(`/memory/facts/${encodeURIComponent(f.id)}`, { method: 'DELETE' });
                    toast('The fact is forgotten.');
                    await load(h('div', { class: 'alert ok', role: 'status' }, 'The fact is forgotten.'), { focusRow: shownFacts.indexOf(f) });
                  } catch (err) {
                    results.prepend(errorBox(err, 'The fact was not forgotten.'));
                  }
                },
              },
              'Forget',
            ),
        },
      ].filter(Boolean),
      rows: list.data,
      empty: userRef ? `No facts are held about “${userRef}”.` : 'No shared facts.',
    });
    const shownFacts = [...list.data];
    const count = h('p', { class: 'muted', role: 'status', tabindex: '-1', 'data-fact-count': String(list.data.length) });
    const more = loadMore({
      page: list,
      fetchPage: (cursor) => api('/recall/facts', { query: { user_ref: userRef, limit: FACTS_PAGE, cursor } }),
      addRows: (facts) => {
        shownFacts.push(...facts);
        rows.add(facts);
        count.setAttribute('data-fact-count', String(shownFacts.length));
      },
      status: count,
      describe: (shown, more) => `${shown} fact${shown === 1 ? '' : 's'} ${who}${more ? ', and more held: load more to see them' : ''}.`,
      errorsTo: results,
    });
    const erase = userRef && mayChange
      ? h(
          'button',
          {
            type: 'button',
            class: 'danger',
            onclick: async () => {
              const ok = await confirmDialog({
                title: `Erase everything about “${userRef}”?`,
                body: [
                  h('p', null, 'Every fact held about this end-user in this workspace is deleted, including submissions still being extracted, and so are the chat traces that name them. Nothing reappears later.'),
                  h('p', null, 'This cannot be undone. The erasure is written to the audit log.'),
                ],
                confirmLabel: 'Erase end-user',
                danger: true,
              });
              if (!ok) return;
              erase.disabled = true;
              try {
                const done = await api('/memory', { method: 'DELETE', query: { user_ref: userRef } });
                const counts = erasedCounts(done.deleted);
                // Nothing about them stays in the console either: not in this page's state, not in the
                // traces filter, not in this section, which says what was done and offers nothing more
                // for them (their facts are not asked for again).
                shownUser = '';
                userRef = '';
                forgetEndUser(done.user_ref);
                toast(`Erased everything about “${done.user_ref}”.`);
                results.replaceChildren(
                  h(
                    'div',
                    { class: 'alert ok', role: 'status', tabindex: '-1', 'data-erased': '' },
                    h('p', null, `Erased everything held about “${done.user_ref}”:`),
                    h('ul', { class: 'erased-counts' }, counts.map(([key, noun, n]) => h('li', { 'data-store': key }, `${int(n)} ${noun}`))),
                  ),
                  h('p', { class: 'muted', 'data-fact-count': '0' }, 'Nothing is held about them any more.'),
                );
                input.value = '';
                // The button that opened the dialog is gone: focus goes to what the erasure did.
                results.querySelector('[data-erased]')?.focus();
              } catch (err) {
                erase.disabled = false;
                results.prepend(errorBox(err, 'The end-user was not erased.'));
              }
            },
          },
          'Erase end-user…',
        )
      : null;
    results.replaceChildren();
    append(
      results,
      note,
      h('h3', null, userRef ? `Facts about “${userRef}”` : 'Shared knowledge'),
      count,
      rows.el,
      h('div', { class: 'list-foot' }, h('span'), more),
      erase ? h('div', { class: 'form-actions' }, erase, h('span', { class: 'muted small-text' }, 'Right to erasure: removes their facts and the traces that name them.')) : null,
      mayChange ? null : h('p', { class: 'muted', 'data-read-only': '' }, 'This key may read facts but not forget them or erase an end-user: that needs the scope memory.write.'),
    );
    if (focusRow !== undefined) {
      const buttons = [...rows.tbody.querySelectorAll('button')];
      (buttons[Math.min(focusRow, buttons.length - 1)] ?? count).focus();
    }
  }

  const el = h('section', { class: 'card', 'aria-labelledby': 'facts-h' }, h('h2', { id: 'facts-h' }, 'End-user memory'), form, results);
  return { el, load };
}
