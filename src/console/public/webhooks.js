import { api, holdsScope } from './api.js';
import { confirmDialog, secretDialog } from './dialog.js';
import { append, errorBox, field, focusFormAfter, focusRedrawn, h, loadMore, loading, pageHead, table, toast, uid } from './dom.js';
import { time } from './format.js';

export const title = 'Webhooks';

const EVENTS = [
  ['document.ready', 'A document is ingested and searchable'],
  ['document.failed', 'A document could not be ingested'],
  ['facts.extracted', 'Facts were extracted from a submission (counts only)'],
  ['memory.erased', 'An end-user’s memory was erased'],
  ['budget.threshold', 'A budget reached 80 % or 100 %'],
];
const DELIVERY_PAGE = 20;

/** Whether this key may change webhooks (webhooks.write), or only read them. */
// When the key cannot be read, the controls stay and the service says no to what it may not do.
const mayChange = () => holdsScope('webhooks.write').catch(() => true);

function readOnlyNote() {
  return h('p', { class: 'muted', 'data-read-only': '' }, 'This key may read the endpoints and their deliveries but not change them: that needs the scope webhooks.write.');
}

// #/webhooks: the workspace's endpoints and a form to add one. #/webhooks/<id>: one endpoint's
// recent deliveries, with re-send, a test event and the secret's rotation.
export async function render(view, route) {
  if (route.path[0]) return renderEndpoint(view, route, route.path[0]);
  view.append(
    pageHead(
      'Webhooks',
      'Endpoints of this workspace that hear of what finishes in the background: ingests, fact extractions, erasures and budgets. Each event is signed (Standard Webhooks) with the endpoint’s secret and retried for about a day until the endpoint answers 2xx.',
    ),
  );
  const status = h('p', { class: 'muted', role: 'status' }, 'Loading the endpoints…');
  const listSection = h('section', { class: 'card', 'aria-labelledby': 'webhooks-h' }, h('h2', { id: 'webhooks-h' }, 'Endpoints'), status);
  const createSection = h('section', { class: 'card', 'aria-labelledby': 'create-webhook-h' }, loading('…'));
  view.append(listSection, createSection);
  let endpoints, writable;
  try {
    [endpoints, writable] = await Promise.all([api('/webhooks').then((list) => list.data), mayChange()]);
  } catch (err) {
    createSection.remove();
    status.replaceWith(errorBox(err, 'The endpoints could not be loaded.'));
    return;
  }
  const reload = () => {
    view.replaceChildren();
    return render(view, route);
  };
  if (writable) createSection.replaceChildren(...createForm(reload));
  else createSection.replaceChildren(h('h2', { id: 'create-webhook-h' }, 'Add an endpoint'), readOnlyNote());
  status.textContent = `${endpoints.length} endpoint${endpoints.length === 1 ? '' : 's'}.`;
  const columns = [
    { label: 'URL', cell: (e) => h('a', { href: route.hrefOf('webhooks', [e.id]), class: 'endpoint-url' }, e.url) },
    { label: 'Events', class: 'scopes-cell', cell: (e) => e.events.map((name) => h('span', { class: 'tag' }, name)) },
    { label: 'Description', cell: (e) => e.description ?? h('span', { class: 'muted' }, '—') },
    { label: 'Status', cell: endpointState },
    { label: 'Created', cell: (e) => time(e.created_at) },
  ];
  append(listSection, table({ caption: 'Webhook endpoints', stack: true, columns, rows: endpoints, empty: 'No endpoints yet.' }).el);
}

function endpointState(endpoint) {
  if (endpoint.enabled) return h('span', { class: 'badge ok', 'data-state': 'enabled' }, 'Enabled');
  return h('span', { class: 'badge warn', 'data-state': 'disabled', title: endpoint.disabled_reason ?? 'Disabled by hand' }, 'Disabled');
}

function eventChecks(chosen) {
  const boxes = EVENTS.map(([name]) => h('input', { type: 'checkbox', name: 'events', value: name, checked: chosen.includes(name), id: uid('event') }));
  const grid = h(
    'div',
    { class: 'check-grid' },
    EVENTS.map(([name, label], i) => h('label', { class: 'check', for: boxes[i].id }, boxes[i], h('span', null, h('code', null, name), ' ', h('span', { class: 'muted small-text' }, label)))),
  );
  return { grid, chosen: () => boxes.filter((b) => b.checked).map((b) => b.value) };
}

function createForm(reload) {
  const url = h('input', { type: 'url', name: 'url', autocomplete: 'off', spellcheck: 'false', required: true, placeholder: 'https://' });
  const description = h('input', { type: 'text', name: 'description', autocomplete: 'off', maxlength: '500' });
  const events = eventChecks(['document.ready', 'document.failed']);
  const feedback = h('div', { 'aria-live': 'polite' });
  const submit = h('button', { type: 'submit' }, 'Add endpoint');
  const form = h(
    'form',
    {
      'aria-label': 'Add a webhook endpoint',
      novalidate: true,
      onsubmit: async (event) => {
        event.preventDefault();
        feedback.replaceChildren();
        const chosen = events.chosen();
        const problem = !url.value.trim() ? 'URL: give the address that receives the events.' : chosen.length === 0 ? 'Events: tick at least one.' : null;
        if (problem) {
          feedback.append(h('div', { class: 'alert error', role: 'alert' }, problem));
          return;
        }
        submit.disabled = true;
        try {
          const body = { url: url.value.trim(), events: chosen, ...(description.value.trim() ? { description: description.value.trim() } : {}) };
          const created = (await api('/webhooks', { method: 'POST', body })).data;
          await showSecret(created, 'The endpoint is added.');
          toast('The endpoint is added.');
          await reload();
          focusFormAfter('create-webhook-h');
        } catch (err) {
          submit.disabled = false;
          feedback.append(errorBox(err, 'The endpoint was not added.'));
        }
      },
    },
    field('URL', url, 'https, on the public internet. Redirects are not followed.'),
    field('Description (optional)', description),
    h('fieldset', null, h('legend', null, 'Events'), events.grid),
    feedback,
    h('div', { class: 'form-actions' }, submit),
  );
  return [h('h2', { id: 'create-webhook-h' }, 'Add an endpoint'), form];
}

function showSecret(endpoint, what) {
  return secretDialog({
    title: 'Copy the signing secret now',
    intro: [`${what} `, h('strong', null, 'This is the only time its signing secret is shown.'), ' Give it to the receiver, which verifies each event with it (for instance with the standardwebhooks library).'],
    label: 'Signing secret',
    secret: endpoint.secret,
  });
}

// ---- one endpoint ----------------------------------------------------------------------------

async function renderEndpoint(view, route, id) {
  const back = h('p', null, h('a', { href: route.hrefOf('webhooks') }, '← All endpoints'));
  view.append(back, pageHead('Webhook endpoint', 'Its recent deliveries: each event sent, with its attempts and the receiver’s last answer.'));
  let endpoint, writable;
  try {
    [endpoint, writable] = await Promise.all([api(`/webhooks/${encodeURIComponent(id)}`).then((one) => one.data), mayChange()]);
  } catch (err) {
    view.append(errorBox(err, 'The endpoint could not be loaded.'));
    return;
  }
  const reload = () => {
    view.replaceChildren();
    return renderEndpoint(view, route, id);
  };
  const summary = h(
    'section',
    { class: 'card', 'aria-labelledby': 'endpoint-h' },
    h('h2', { id: 'endpoint-h' }, h('span', { class: 'endpoint-url' }, endpoint.url)),
    endpoint.description ? h('p', { class: 'endpoint-description' }, endpoint.description) : null,
    h('p', null, endpointState(endpoint), ' ', endpoint.events.map((name) => h('span', { class: 'tag' }, name))),
    endpoint.failing_since
      ? h(
          'p',
          { class: 'alert error', 'data-failing-since': endpoint.failing_since },
          h('strong', null, 'Failing since '),
          time(endpoint.failing_since),
          endpoint.enabled ? ': its deliveries have not been answered with 2xx since then. An endpoint that keeps failing is disabled by the service.' : '.',
        )
      : null,
    endpoint.disabled_reason ? h('p', { class: 'muted' }, `Disabled by the service: ${endpoint.disabled_reason}.`) : null,
    writable
      ? h(
          'div',
          { class: 'row-actions' },
          h('button', { type: 'button', class: 'secondary small', 'data-action': 'send-test', onclick: () => sendTest(endpoint, reload) }, 'Send test event'),
          h('button', { type: 'button', class: 'secondary small', 'data-action': 'toggle-enabled', onclick: () => setEnabled(endpoint, !endpoint.enabled, reload) }, endpoint.enabled ? 'Disable' : 'Enable'),
          h('button', { type: 'button', class: 'secondary small', onclick: () => rotate(endpoint) }, 'Rotate secret…'),
          h('button', { type: 'button', class: 'danger-outline small', onclick: () => remove(endpoint, route) }, 'Delete…'),
        )
      : readOnlyNote(),
  );
  const status = h('p', { class: 'muted', role: 'status' }, 'Loading the deliveries…');
  const deliveriesSection = h('section', { class: 'card', 'aria-labelledby': 'deliveries-h' }, h('h2', { id: 'deliveries-h' }, 'Recent deliveries'), status);
  view.append(summary, deliveriesSection);
  const deliveriesOf = (cursor) => api(`/webhooks/${encodeURIComponent(id)}/deliveries`, { query: { limit: DELIVERY_PAGE, cursor } });
  let page;
  try {
    page = await deliveriesOf();
  } catch (err) {
    status.replaceWith(errorBox(err, 'The deliveries could not be loaded.'));
    return;
  }
  const columns = [
    { label: 'Event', cell: (d) => h('code', null, d.event_type) },
    { label: 'Status', cell: deliveryState },
    { label: 'Attempts', num: true, cell: (d) => String(d.attempts) },
    { label: 'Last answer', cell: (d) => (d.last_status_code !== null ? String(d.last_status_code) : h('span', { class: 'muted' }, '—')) },
    { label: 'Last response', class: 'response-cell', cell: lastResponse },
    { label: 'Last error', cell: (d) => d.last_error ?? h('span', { class: 'muted' }, '—') },
    { label: 'Delivered', cell: (d) => (d.delivered_at ? time(d.delivered_at) : h('span', { class: 'muted' }, '—')) },
    { label: 'Next attempt', cell: (d) => (d.next_attempt_at ? time(d.next_attempt_at) : h('span', { class: 'muted' }, '—')) },
    { label: 'Created', cell: (d) => time(d.created_at) },
    ...(writable
      ? [
          {
            label: 'Actions',
            // A disabled endpoint refuses a re-send (409): the button says why instead.
            cell: (d) =>
              h(
                'button',
                {
                  type: 'button',
                  class: 'secondary small',
                  'data-action': 'resend',
                  'aria-label': `Re-send ${d.event_type} ${d.id}`,
                  disabled: !endpoint.enabled,
                  title: endpoint.enabled ? undefined : 'Enable the endpoint to re-send',
                  onclick: () => resend(endpoint, d, reload),
                },
                'Re-send',
              ),
          },
        ]
      : []),
  ];
  const rows = table({ caption: 'Deliveries', stack: true, columns, rows: page.data, empty: writable ? 'Nothing sent yet. Send a test event to try the endpoint.' : 'Nothing sent yet.' });
  const markRows = (deliveries, from) =>
    deliveries.forEach((d, i) => {
      const tr = rows.tbody.children[from + i];
      if (tr) tr.dataset.deliveryId = d.id;
    });
  if (page.data.length) markRows(page.data, 0);
  const more = loadMore({
    page,
    fetchPage: deliveriesOf,
    addRows: (deliveries) => {
      const before = rows.tbody.children.length;
      rows.add(deliveries);
      markRows(deliveries, before);
    },
    status,
    describe: (shown, more) => `${shown} most recent deliver${shown === 1 ? 'y' : 'ies'}${more ? ' (more available)' : ''}.`,
    errorsTo: deliveriesSection,
  });
  append(deliveriesSection, rows.el, h('div', { class: 'list-foot' }, h('button', { type: 'button', class: 'secondary', onclick: reload }, 'Refresh'), more));
}

/** The receiver's last answer body (kept up to 4 KiB): its start, the whole of it on demand. */
function lastResponse(delivery) {
  const body = delivery.last_response;
  if (body === null || body === undefined || body === '') return h('span', { class: 'muted' }, '—');
  const short = body.length > 60 ? `${body.slice(0, 60)}…` : body;
  if (short === body) return h('code', { class: 'response-body' }, body);
  return h('details', { class: 'response-body' }, h('summary', null, h('code', null, short)), h('pre', { class: 'content' }, body));
}

function deliveryState(delivery) {
  const kinds = { delivered: ['ok', 'Delivered'], pending: ['warn', 'Pending'], failed: ['bad', 'Failed'] };
  const [kind, label] = kinds[delivery.status] ?? ['warn', delivery.status];
  return h('span', { class: `badge ${kind}`, 'data-state': delivery.status }, label);
}

async function sendTest(endpoint, reload) {
  try {
    await api(`/webhooks/${encodeURIComponent(endpoint.id)}/test`, { method: 'POST' });
    toast('A test event is on its way.');
    await reload();
    focusRedrawn('[data-action="send-test"]');
  } catch (err) {
    document.getElementById('endpoint-h')?.after(errorBox(err, 'The test event was not sent.'));
  }
}

async function resend(endpoint, delivery, reload) {
  try {
    await api(`/webhooks/${encodeURIComponent(endpoint.id)}/deliveries/${encodeURIComponent(delivery.id)}/retry`, { method: 'POST' });
    toast('The delivery is sent again.');
    await reload();
    const row = `tr[data-delivery-id="${CSS.escape(delivery.id)}"]`;
    focusRedrawn(`${row} [data-action="resend"]`, row, '#deliveries-h ~ .table-wrap');
  } catch (err) {
    document.getElementById('deliveries-h')?.after(errorBox(err, 'The delivery was not sent again.'));
  }
}

async function setEnabled(endpoint, enabled, reload) {
  try {
    await api(`/webhooks/${encodeURIComponent(endpoint.id)}`, { method: 'PATCH', body: { enabled } });
    toast(enabled ? 'The endpoint is enabled.' : 'The endpoint is disabled: it is sent nothing until enabled again.');
    await reload();
    // The same button, now saying the opposite.
    focusRedrawn('[data-action="toggle-enabled"]');
  } catch (err) {
    document.getElementById('endpoint-h')?.after(errorBox(err, 'The endpoint was not changed.'));
  }
}

async function rotate(endpoint) {
  const confirmed = await confirmDialog({
    title: 'Rotate the signing secret?',
    body: [h('p', null, 'A new secret signs every event from now on. For 24 hours the old one signs too, beside it, so the receiver can switch without missing an event.')],
    confirmLabel: 'Rotate secret',
  });
  if (!confirmed) return;
  try {
    const rotated = (await api(`/webhooks/${encodeURIComponent(endpoint.id)}/rotate-secret`, { method: 'POST' })).data;
    await showSecret(rotated, 'The secret is rotated.');
  } catch (err) {
    document.getElementById('endpoint-h')?.after(errorBox(err, 'The secret was not rotated.'));
  }
}

async function remove(endpoint, route) {
  const confirmed = await confirmDialog({
    title: 'Delete this endpoint?',
    body: [h('p', null, `${endpoint.url} is sent nothing more, and its deliveries are deleted with it.`)],
    confirmLabel: 'Delete endpoint',
    danger: true,
  });
  if (!confirmed) return;
  try {
    await api(`/webhooks/${encodeURIComponent(endpoint.id)}`, { method: 'DELETE' });
    toast('The endpoint is deleted.');
    route.navigate(route.hrefOf('webhooks'));
  } catch (err) {
    document.getElementById('endpoint-h')?.after(errorBox(err, 'The endpoint was not deleted.'));
  }
}
