import { api } from './api.js';
import { confirmDialog } from './dialog.js';
import { append, errorBox, field, h, loading, pageHead, table, toast } from './dom.js';
import { int, time } from './format.js';

export const title = 'Memory';

const STATUS = { ready: 'ok', queued: 'warn', processing: 'warn', failed: 'bad' };

export async function render(view, route) {
  view.append(pageHead('Memory', 'Document collections with their ingest status, and the long-term facts held about an end-user — with forget and erase.'));
  const userRef = route.params.get('user') ?? '';
  const collection = route.params.get('collection') ?? '';
  const facts = factsSection(route, userRef);
  const docs = h('div', null, loading('Loading collections and documents…'));
  view.append(docs, facts.el);
  await Promise.all([documentsSection(docs, route, collection, userRef), facts.load()]);
}

async function documentsSection(container, route, collection, userRef) {
  let collections, page;
  try {
    [collections, page] = await Promise.all([
      api('/recall/collections'),
      api('/memory/documents', { query: { collection, limit: 50 } }),
    ]);
  } catch (err) {
    container.replaceChildren(errorBox(err, 'Collections and documents could not be loaded.'));
    return;
  }
  const collectionsTable = table({
    caption: 'Collections',
    narrow: true,
    columns: [
      { label: 'Name', cell: (c) => c.name },
      { label: 'Slug', cell: (c) => h('code', null, c.slug) },
      { label: 'Documents', num: true, cell: (c) => int(c.documents_count) },
    ],
    rows: collections.data,
    empty: 'No collections yet.',
  });

  const select = h(
    'select',
    {
      name: 'collection',
      onchange: () => route.navigate(route.hrefOf('memory', [], { collection: select.value, user: userRef })),
    },
    h('option', { value: '' }, 'All collections'),
    collections.data.map((c) => h('option', { value: c.slug, selected: c.slug === collection }, c.name)),
  );
  const documents = table({
    caption: 'Documents',
    stack: true,
    columns: [
      { label: 'Title', cell: (d) => d.title ?? h('span', { class: 'muted' }, '(untitled)') },
      { label: 'Collection', cell: (d) => (d.collection ? h('code', null, d.collection) : '–') },
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
  const refresh = h('button', { type: 'button', class: 'secondary small', onclick: () => documentsSection(container, route, collection, userRef) }, 'Refresh');

  container.replaceChildren(
    h(
      'div',
      { class: 'grid-2 memory-grid' },
      h('section', { class: 'card', 'aria-labelledby': 'collections-h' }, h('h2', { id: 'collections-h' }, 'Collections'), collectionsTable.el),
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'documents-h' },
        h('div', { class: 'card-head' }, h('h2', { id: 'documents-h' }, 'Documents'), refresh),
        h('form', { class: 'toolbar spaced', onsubmit: (e) => e.preventDefault(), 'aria-label': 'Documents of a collection' }, field('Collection', select)),
        documents.el,
        h('div', { class: 'list-foot' }, h('span', { class: 'muted small-text' }, 'Status: queued → processing → ready, or failed.'), more),
      ),
    ),
  );
}

function factsSection(route, userRef) {
  const input = h('input', { type: 'text', name: 'user_ref', value: userRef, autocomplete: 'off', spellcheck: 'false', maxlength: '255' });
  const results = h('div');
  const form = h(
    'form',
    {
      role: 'search',
      'aria-label': 'Facts of an end-user',
      onsubmit: (event) => {
        event.preventDefault();
        const href = route.hrefOf('memory', [], { collection: route.params.get('collection') ?? '', user: input.value.trim() });
        if (href === location.hash) load();
        else route.navigate(href);
      },
    },
    h('div', { class: 'filters' }, field('End-user reference (user_ref)', input, 'Leave empty for the workspace’s shared knowledge.')),
    h('div', { class: 'form-actions' }, h('button', { type: 'submit' }, 'Show facts')),
  );

  async function load(note) {
    results.replaceChildren(loading('Loading facts…'));
    let list;
    try {
      list = await api('/recall/facts', { query: { user_ref: userRef } });
    } catch (err) {
      results.replaceChildren(errorBox(err, 'The facts could not be loaded.'));
      return;
    }
    const who = userRef ? `about “${userRef}”` : 'in the shared knowledge';
    const rows = table({
      caption: userRef ? `Facts about ${userRef}` : 'Shared facts',
      stack: true,
      columns: [
        { label: 'Fact', cell: (f) => f.content },
        { label: 'Added', cell: (f) => time(f.created_at) },
        { label: 'Updated', cell: (f) => time(f.updated_at) },
        {
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
                    await load(h('div', { class: 'alert ok', role: 'status' }, 'The fact is forgotten.'));
                  } catch (err) {
                    results.prepend(errorBox(err, 'The fact was not forgotten.'));
                  }
                },
              },
              'Forget',
            ),
        },
      ],
      rows: list.data,
      empty: userRef ? `No facts are held about “${userRef}”.` : 'No shared facts.',
    });
    const count = h('p', { class: 'muted', role: 'status', 'data-fact-count': String(list.data.length) }, `${list.data.length} fact${list.data.length === 1 ? '' : 's'} ${who}.`);
    const erase = userRef
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
                const message = `Erased ${done.deleted.facts} fact${done.deleted.facts === 1 ? '' : 's'} about “${done.user_ref}”.`;
                toast(message);
                await load(h('div', { class: 'alert ok', role: 'status' }, message));
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
      erase ? h('div', { class: 'form-actions' }, erase, h('span', { class: 'muted small-text' }, 'Right to erasure: removes their facts and the traces that name them.')) : null,
    );
  }

  const el = h('section', { class: 'card', 'aria-labelledby': 'facts-h' }, h('h2', { id: 'facts-h' }, 'End-user memory'), form, results);
  return { el, load };
}
