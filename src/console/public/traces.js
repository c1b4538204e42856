import { api, holdsScope } from './api.js';
import { append, errorBox, field, h, loadMore, loading, pageHead, s, table, toast } from './dom.js';
import { credits, int, json, ms, time } from './format.js';

export const title = 'Traces';

const FILTERS = [
  { name: 'application', label: 'Application', hint: 'X-Application-Name of the calls' },
  { name: 'thread', label: 'Thread' },
  { name: 'tag', label: 'Tag' },
  { name: 'user', label: 'End-user', hint: 'The user field of the chat request' },
  { name: 'model', label: 'Model', hint: 'The model that served the call' },
  { name: 'name', label: 'Name', hint: 'The name field of the call' },
  { name: 'from', label: 'From', type: 'date', hint: 'UTC day, included' },
  { name: 'to', label: 'Until', type: 'date', hint: 'UTC day, not included' },
];
const PAGE_SIZE = 50;

// The list's query, so "All traces" from a detail view returns to the same filters.
let lastListHref = '#/traces';

// The End-user filter names a person (the caller's user field): it is kept in this page's state,
// never in the address, which browser history, bookmarks and screenshots keep.
let userFilter = '';

/** On signing out: the next session in this tab starts without the last one's filters. */
export function forgetFilters() {
  userFilter = '';
  lastListHref = '#/traces';
}

/** After an erasure: the erased end-user is no longer the traces filter. */
export function forgetEndUser(userRef) {
  if (userFilter === userRef) userFilter = '';
}

export async function render(view, route) {
  if (route.path.length > 0 && route.path[0]) return renderDetail(view, route, route.path.join('/'));
  return renderList(view, route);
}

function statusBadge(status) {
  const cls = status < 400 ? 'ok' : status < 500 ? 'warn' : 'bad';
  return h('span', { class: `badge ${cls}` }, String(status));
}

/** The list's address: every filter but the end-user. */
function listHref(route, params) {
  return route.hrefOf('traces', [], Object.fromEntries(Object.entries(params).filter(([name]) => name !== 'user')));
}

async function renderList(view, route) {
  // An old link may still carry ?user=: it is taken into the page, and the address replaced without it.
  if (route.params.has('user')) {
    userFilter = route.params.get('user') ?? '';
    history.replaceState(history.state, '', listHref(route, Object.fromEntries(route.params)));
  }
  lastListHref = listHref(route, Object.fromEntries(route.params));
  const active = Object.fromEntries(FILTERS.map((f) => [f.name, f.name === 'user' ? userFilter : (route.params.get(f.name) ?? '')]));
  const modelList = h('datalist', { id: 'trace-models' });
  const inputs = FILTERS.map((f) =>
    h('input', {
      type: f.type ?? 'text',
      name: f.name,
      value: active[f.name],
      autocomplete: 'off',
      ...(f.name === 'model' ? { list: 'trace-models' } : {}),
    }),
  );
  const form = h(
    'form',
    {
      class: 'card',
      role: 'search',
      'aria-label': 'Filter traces',
      onsubmit: (event) => {
        event.preventDefault();
        const params = Object.fromEntries(inputs.map((i) => [i.name, i.value.trim()]));
        userFilter = params.user;
        show(listHref(route, params));
      },
    },
    h('div', { class: 'filters' }, FILTERS.map((f, i) => field(f.label, inputs[i], f.hint))),
    modelList,
    h(
      'div',
      { class: 'form-actions' },
      h('button', { type: 'submit' }, 'Apply filters'),
      h(
        'button',
        {
          type: 'button',
          class: 'secondary',
          onclick: () => {
            userFilter = '';
            show(route.hrefOf('traces'));
          },
        },
        'Clear',
      ),
    ),
  );
  // The address may stay the same when only the end-user changed: then the list is drawn again here.
  const show = (href) => {
    if (href !== location.hash) {
      route.navigate(href);
      return;
    }
    view.replaceChildren();
    const done = renderList(view, route);
    view.querySelector('h1')?.focus({ preventScroll: true });
    return done;
  };
  view.append(pageHead('Traces', 'Every chat call, newest first: who sent it, which model served it, and what it cost. Open one to read what was sent (masked) and to score the answer.'), form);
  // Model suggestions are a nicety: a key without access still gets the list.
  api('/models')
    .then((list) => {
      for (const m of list.data.filter((m) => m.type === 'chat')) modelList.append(h('option', { value: m.id }));
    })
    .catch(() => {});

  const status = h('p', { class: 'muted', role: 'status' }, 'Loading traces…');
  const results = h('section', { class: 'card', 'aria-labelledby': 'trace-list-h' }, h('h2', { id: 'trace-list-h' }, 'Traces'), status);
  view.append(results);

  const query = { ...Object.fromEntries(Object.entries(active).filter(([, v]) => v)), limit: PAGE_SIZE };
  let page;
  try {
    page = await api('/traces', { query });
  } catch (err) {
    status.replaceWith(errorBox(err, 'The traces could not be loaded.'));
    return;
  }

  const list = table({
    caption: 'Traces',
    stack: true,
    columns: [
      { label: 'Time', cell: (t) => time(t.created_at) },
      {
        label: 'Trace',
        cell: (t) => h('a', { href: route.hrefOf('traces', [t.id]), class: 'trace-id', title: t.id, 'data-trace-id': t.id }, t.id),
      },
      { label: 'Application', class: 'col-application wrap-cell', cell: (t) => t.application ?? '–' },
      { label: 'Model', class: 'wrap-cell', cell: (t) => (t.model ? h('code', null, t.model) : '–') },
      { label: 'Status', cell: (t) => statusBadge(t.status) },
      { label: 'Thread', class: 'wrap-cell', cell: (t) => t.thread ?? '–' },
      { label: 'End-user', class: 'wrap-cell', cell: (t) => t.user ?? '–' },
      { label: 'Tags', class: 'wrap-cell', cell: (t) => (t.tags?.length ? t.tags.map((tag) => h('span', { class: 'tag' }, tag)) : '–') },
      { label: 'Latency', num: true, cell: (t) => ms(t.latency_ms) },
      { label: 'Tokens', num: true, cell: (t) => (t.usage ? int(t.usage.total_tokens) : '–') },
      { label: 'Credits', num: true, cell: (t) => (t.usage ? credits(t.usage.credits.total) : '–') },
    ],
    rows: page.data,
    empty: Object.values(active).some(Boolean) ? 'No traces match these filters.' : 'No traces yet.',
  });
  const more = loadMore({
    page,
    fetchPage: (cursor) => api('/traces', { query: { ...query, cursor } }),
    addRows: (rows) => list.add(rows),
    status,
    describe: (shown, more) => {
      const filters = FILTERS.filter((f) => active[f.name]).map((f) => `${f.label.toLowerCase()} “${active[f.name]}”`);
      return `${shown} trace${shown === 1 ? '' : 's'}${filters.length ? ` with ${filters.join(', ')}` : ''}${more ? ' (more available)' : ''}.`;
    },
    errorsTo: results,
  });
  results.append(list.el, h('div', { class: 'list-foot' }, h('span'), more));
}

/** The text of a message's content: a string, or OpenAI-style parts (attachments are named, not shown). */
function contentText(content) {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => {
        if (part?.type === 'text') return part.text ?? '';
        return `[${part?.type ?? 'part'} attachment]`;
      })
      .join('\n');
  }
  return json(content, 2);
}

function messageList(messages) {
  return h(
    'ol',
    { class: 'messages' },
    messages.map((m) =>
      h(
        'li',
        null,
        h('span', { class: 'role' }, m.role ?? 'message'),
        m.name ? h('span', { class: 'muted small-text' }, ` (${m.name})`) : null,
        h('pre', { class: 'content' }, contentText(m.content)),
        m.tool_calls ? h('pre', { class: 'content' }, `tool calls: ${json(m.tool_calls, 2)}`) : null,
      ),
    ),
  );
}

function dl(pairs) {
  return h(
    'dl',
    { class: 'facts' },
    pairs.filter(([, v]) => v !== undefined).map(([k, v]) => h('div', null, h('dt', null, k), h('dd', null, v ?? '–'))),
  );
}

function timingBar(value, max) {
  const share = max > 0 && typeof value === 'number' ? Math.max(0.5, (value / max) * 100) : 0;
  return s(
    'svg',
    { class: 'timing', 'aria-hidden': 'true', focusable: 'false' },
    s('rect', { class: 'track', x: '0', y: '0', width: '100%', height: '10', rx: '3' }),
    s('rect', { class: 'fill', x: '0', y: '0', width: `${share.toFixed(1)}%`, height: '10', rx: '3' }),
  );
}

function wide(el) {
  el.classList.add('wide');
  return el;
}

/**
 * A score's value as typed: true/false, a number, or else a text. A number too large for the
 * service to keep ("1e400", "Infinity") is refused here with a message, where sending it would
 * turn it into null and a 422 about a null value.
 */
function parseScoreValue(raw) {
  const text = raw.trim();
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (/^[+-]?(infinity|(\d+\.?\d*|\.\d+)(e[+-]?\d+)?)$/i.test(text)) {
    const value = Number(text);
    if (!Number.isFinite(value)) throw new Error('Value: enter a finite number (such as 0.8 or 1e6), true or false, or a short text.');
    return value;
  }
  return text;
}

async function renderDetail(view, route, id) {
  const head = pageHead('Trace');
  head.prepend(h('a', { href: lastListHref, class: 'back' }, '← All traces'));
  view.append(head);
  const body = h('div', null, loading('Loading the trace…'));
  view.append(body);
  let trace, mayScore;
  try {
    // When the key cannot be read, the form stays and the service says no if it may not score.
    [trace, mayScore] = await Promise.all([api(`/traces/${encodeURIComponent(id)}`), holdsScope('scores.write').catch(() => true)]);
  } catch (err) {
    body.replaceChildren(errorBox(err, err.status === 404 ? 'No such trace in this workspace.' : 'The trace could not be loaded.'));
    return;
  }
  append(head.querySelector('h1'), ' ', h('code', { class: 'small-text' }, trace.id));

  const overview = h(
    'section',
    { class: 'card', 'aria-labelledby': 'trace-overview-h' },
    h('h2', { id: 'trace-overview-h' }, 'Overview'),
    dl([
      ['Time', time(trace.created_at)],
      ['Status', statusBadge(trace.status)],
      ['Application', trace.application],
      ['Model', trace.model ? h('code', null, trace.model) : null],
      ['Provider', trace.provider],
      ['Latency', ms(trace.latency_ms)],
      ['Cache', trace.cache],
      ['Streamed', trace.stream ? 'yes' : 'no'],
      ['Thread', trace.thread],
      ['End-user', trace.user],
      ['Name', trace.name],
      ['Tags', trace.tags?.length ? trace.tags.map((t) => h('span', { class: 'tag' }, t)) : null],
      ['Tokens', trace.usage ? `${int(trace.usage.prompt_tokens)} in · ${int(trace.usage.completion_tokens)} out · ${int(trace.usage.cached_tokens)} cached` : null],
      ['Credits', trace.usage ? `${credits(trace.usage.credits.total)} (base ${credits(trace.usage.credits.base)}, services ${credits(trace.usage.credits.services)})` : null],
      ['Firewall', trace.firewall ? firewallText(trace.firewall) : 'off (sent unmasked)'],
      ['Trace context', trace.trace_context ? h('code', null, `${trace.trace_context.trace_id} / ${trace.trace_context.parent_span_id}`) : null],
    ]),
  );

  const attempts = trace.attempts ?? [];
  const slowest = Math.max(trace.latency_ms ?? 0, ...attempts.map((a) => a.latency_ms ?? 0));
  const attemptsTable = table({
    caption: 'Attempts',
    stack: true,
    columns: [
      { label: '#', num: true, cell: (a) => String(attempts.indexOf(a) + 1) },
      { label: 'Model', cell: (a) => h('code', null, a.model) },
      { label: 'Provider', cell: (a) => a.provider },
      { label: 'Upstream status', cell: (a) => (a.status === null ? 'no answer' : String(a.status)) },
      { label: 'Time', num: true, cell: (a) => ms(a.latency_ms) },
      { label: 'Timing', class: 'timing-cell', cell: (a) => timingBar(a.latency_ms, slowest) },
      { label: 'Error', cell: (a) => a.error ?? '–' },
    ],
    rows: attempts,
    // Ingest and fact extraction record the models they used (above), not each call's attempt.
    empty:
      trace.kind === 'ingest' || trace.kind === 'facts'
        ? 'Background work (ingest, fact extraction) records the models it used, not each call to a provider.'
        : 'No provider was called (answered from the cache, or refused before routing).',
  });
  const attemptsSection = h(
    'section',
    { class: 'card', 'aria-labelledby': 'trace-attempts-h' },
    h('div', { class: 'card-head' }, h('h2', { id: 'trace-attempts-h' }, 'Attempts and timings'), h('span', { class: 'muted small-text' }, `Total ${ms(trace.latency_ms)}`)),
    attemptsTable.el,
  );

  const request = trace.request ?? {};
  const messages = Array.isArray(request.messages) ? request.messages : [];
  const { messages: _omit, ...parameters } = request;
  const input = h(
    'section',
    { class: 'card', 'aria-labelledby': 'trace-input-h' },
    h('h2', { id: 'trace-input-h' }, 'Input'),
    h('p', { class: 'muted small-text' }, trace.firewall ? 'As sent to the provider: personal data is masked.' : 'As sent to the provider.'),
    messages.length ? messageList(messages) : h('p', { class: 'muted' }, 'No messages recorded.'),
    Object.keys(parameters).length ? h('details', null, h('summary', null, 'Parameters'), h('pre', { class: 'raw' }, json(parameters, 2))) : null,
  );

  const response = trace.response;
  const choices = Array.isArray(response?.choices) ? response.choices : null;
  const output = h(
    'section',
    { class: 'card', 'aria-labelledby': 'trace-output-h' },
    h('h2', { id: 'trace-output-h' }, 'Output'),
    choices
      ? messageList(choices.map((c) => ({ role: c.message?.role ?? 'assistant', content: c.message?.content, tool_calls: c.message?.tool_calls })))
      : response
        ? h('pre', { class: 'raw' }, json(response, 2))
        : h('p', { class: 'muted' }, 'No output recorded.'),
  );

  const extras = [];
  if (trace.sources?.length) {
    extras.push(
      h('h3', null, 'Sources'),
      h(
        'ol',
        null,
        // The trace keeps which sources were used and their scores; their text only when it has it.
        trace.sources.map((src) =>
          h(
            'li',
            null,
            h('strong', null, src.type),
            src.title ? ` · ${src.title}` : '',
            src.collection ? ` (${src.collection})` : '',
            typeof src.score === 'number' ? ` · score ${src.score.toFixed(3)}` : '',
            src.text ? [': ', h('span', null, src.text)] : '',
          ),
        ),
      ),
    );
  }
  if (trace.dropped_parameters?.length) extras.push(h('h3', null, 'Dropped parameters'), h('p', null, trace.dropped_parameters.join(', ')));
  if (trace.notes?.length) extras.push(h('h3', null, 'Notes'), h('ul', null, trace.notes.map((n) => h('li', null, n))));
  const notes = extras.length ? h('section', { class: 'card', 'aria-labelledby': 'trace-notes-h' }, h('h2', { id: 'trace-notes-h' }, 'Routing notes and sources'), extras) : null;

  body.replaceChildren();
  const raw = h('pre', { class: 'raw' }, json(trace, 2));
  // A score added here joins the trace, as the API would now answer it.
  const scored = (score) => {
    trace.scores = [...(trace.scores ?? []), score];
    raw.textContent = json(trace, 2);
  };
  append(body, overview, attemptsSection, h('div', { class: 'grid-2' }, input, output), notes, scoreSection(trace, scored, mayScore), h('details', { class: 'card' }, h('summary', null, 'Raw trace (JSON)'), raw));
}

function firewallText(firewall) {
  const counts = Object.entries(firewall.counts ?? {});
  const masked = counts.length ? counts.map(([type, n]) => `${type} ×${n}`).join(', ') : 'nothing found to mask';
  return `on (${firewall.language ?? 'auto'}): ${masked}`;
}

function scoreSection(trace, onScored, mayScore) {
  const scores = table({
    caption: 'Scores',
    narrow: true,
    stack: true,
    columns: [
      { label: 'Name', cell: (sc) => sc.name },
      { label: 'Value', cell: (sc) => String(sc.value) },
      { label: 'Comment', cell: (sc) => sc.comment ?? '–' },
      { label: 'Added', cell: (sc) => time(sc.created_at) },
    ],
    rows: trace.scores ?? [],
    empty: 'No scores yet.',
  });
  const head = h('h2', { id: 'trace-scores-h' }, 'Scores');
  if (!mayScore) {
    return h(
      'section',
      { class: 'card', 'aria-labelledby': 'trace-scores-h' },
      head,
      scores.el,
      h('p', { class: 'muted', 'data-read-only': '' }, 'This key may read the scores but not add one: that needs the scope scores.write.'),
    );
  }
  const name = h('input', { type: 'text', name: 'name', required: true, maxlength: '120', autocomplete: 'off' });
  const value = h('input', { type: 'text', name: 'value', required: true, maxlength: '1000', autocomplete: 'off' });
  const comment = h('textarea', { name: 'comment', maxlength: '10000', rows: '2' });
  const feedback = h('div', { 'aria-live': 'polite' });
  const submit = h('button', { type: 'submit' }, 'Add score');
  const form = h(
    'form',
    {
      'aria-label': 'Add a score',
      onsubmit: async (event) => {
        event.preventDefault();
        feedback.replaceChildren();
        if (!form.reportValidity()) return;
        value.removeAttribute('aria-invalid');
        let parsed;
        try {
          parsed = parseScoreValue(value.value);
        } catch (err) {
          value.setAttribute('aria-invalid', 'true');
          feedback.append(h('div', { class: 'alert error', role: 'alert' }, err.message));
          value.focus();
          return;
        }
        const body = { trace_id: trace.id, name: name.value.trim(), value: parsed };
        if (comment.value.trim()) body.comment = comment.value.trim();
        submit.disabled = true;
        try {
          const created = await api('/scores', { method: 'POST', body });
          scores.add([created.data]);
          onScored(created.data);
          form.reset();
          toast(`Score “${created.data.name}” saved.`);
          feedback.append(h('div', { class: 'alert ok' }, `Score “${created.data.name}” = ${String(created.data.value)} saved.`));
          name.focus();
        } catch (err) {
          feedback.append(errorBox(err, 'The score was not saved.'));
        } finally {
          submit.disabled = false;
        }
      },
    },
    h(
      'div',
      { class: 'filters' },
      field('Score name', name, 'e.g. helpfulness, correct'),
      field('Value', value, 'A number, true/false, or a short text'),
      wide(field('Comment (optional)', comment)),
    ),
    h('div', { class: 'form-actions' }, submit),
    feedback,
  );
  return h('section', { class: 'card', 'aria-labelledby': 'trace-scores-h' }, head, scores.el, h('h3', null, 'Add a score'), form);
}
