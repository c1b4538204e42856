// DOM helpers. Every piece of data becomes a text node: nothing here parses HTML, so a trace's
// arbitrary text can never turn into markup or script.

const SVG_NS = 'http://www.w3.org/2000/svg';
const PROPERTIES = new Set(['value', 'checked', 'disabled', 'selected', 'required', 'hidden', 'open', 'indeterminate']);

function applyProps(el, props) {
  for (const [name, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      el.addEventListener(name.slice(2).toLowerCase(), value);
    } else if (name === 'dataset') {
      Object.assign(el.dataset, value);
    } else if (PROPERTIES.has(name)) {
      el[name] = value;
    } else if (value === false) {
      continue;
    } else {
      el.setAttribute(name, value === true ? '' : String(value));
    }
  }
}

/** Appends children: nodes as they are, anything else as text. Arrays are flattened; null and false skipped. */
export function append(el, ...children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** An HTML element: h('a', {href: '#/x', class: 'y'}, 'text', otherNode). */
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  applyProps(el, props);
  return append(el, ...children);
}

/** An SVG element. */
export function s(tag, props, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  applyProps(el, props);
  return append(el, ...children);
}

let ids = 0;
/** A unique id for label/aria wiring. */
export function uid(prefix = 'id') {
  ids += 1;
  return `${prefix}-${ids}`;
}

/** A labelled field: label, control, optional hint wired with aria-describedby. */
export function field(labelText, control, hintText) {
  if (!control.id) control.id = uid('f');
  const children = [h('label', { for: control.id }, labelText), control];
  if (hintText) {
    const hint = h('span', { class: 'hint', id: uid('hint') }, hintText);
    control.setAttribute('aria-describedby', hint.id);
    children.push(hint);
  }
  return h('div', { class: 'field' }, children);
}

/**
 * A table inside a horizontally scrolling, keyboard-focusable region. With `stack`, each row
 * becomes a small card of "label value" lines on a phone instead (cells carry their column name).
 */
export function table({ caption, columns, rows, empty = 'Nothing to show.', narrow = false, stack = false }) {
  const tbody = h('tbody');
  const wrap = h(
    'div',
    { class: ['table-wrap', narrow ? 'narrow' : '', stack ? 'stack' : ''].join(' ').trim(), role: 'region', tabindex: '0', 'aria-label': `${caption} table` },
    h(
      'table',
      null,
      h('caption', { class: 'visually-hidden' }, caption),
      h('thead', null, h('tr', null, columns.map((c) => h('th', { scope: 'col', class: c.num ? 'num' : undefined }, c.label)))),
      tbody,
    ),
  );
  const add = (items) => {
    for (const item of items) {
      tbody.append(
        h(
          'tr',
          null,
          columns.map((c) =>
            stack
              ? // One box for the content, so the cell's two grid columns are label and value.
                h('td', { class: c.num ? 'num' : c.class, 'data-label': c.label }, h('div', { class: 'cell' }, c.cell(item)))
              : h('td', { class: c.num ? 'num' : c.class }, c.cell(item)),
          ),
        ),
      );
    }
  };
  const setRows = (items) => {
    tbody.replaceChildren();
    wrap.classList.toggle('is-empty', items.length === 0);
    if (items.length === 0) tbody.append(h('tr', null, h('td', { class: 'empty', colspan: String(columns.length) }, empty)));
    else add(items);
  };
  setRows(rows ?? []);
  return {
    el: wrap,
    tbody,
    setRows,
    /** Appends rows (a "load more" page); the empty-row placeholder goes. */
    add(items) {
      if (tbody.querySelector('td.empty')) tbody.replaceChildren();
      wrap.classList.remove('is-empty');
      add(items);
    },
  };
}

/**
 * A refusal in words: the service's schema check names the regular expression a value failed
 * (`must match pattern "^[0-9]{4}-…"`), which tells a reader nothing.
 */
function inWords(text) {
  return String(text).replace(/must match pattern "((?:[^"\\]|\\.)*)"/g, (_, pattern) =>
    pattern.startsWith('^[0-9]{4}-[0-9]{2}-[0-9]{2}') ? `must be a date, such as ${new Date().toISOString().slice(0, 10)}` : 'is not in the form expected',
  );
}

/** The alert for a failed call: the service's message, field errors, and the request id to quote. */
export function errorBox(err, context) {
  const box = h('div', { class: 'alert error', role: 'alert' });
  if (context) append(box, h('strong', null, context), ' ');
  const message = inWords(err?.friendly ?? err?.message ?? String(err));
  const fields = err?.body?.errors && typeof err.body.errors === 'object' ? Object.entries(err.body.errors) : [];
  if (fields.length === 0) {
    append(box, message);
  } else {
    // A 422's generic message repeats its field errors ("invalid request: name must be …"): each
    // is shown once, in the list. A message of its own is kept, with the fields it does not name.
    const lines = fields.map(([name, messages]) => [name, inWords([].concat(messages).join('; '))]);
    const generic = /^invalid request:/i.test(message);
    const listed = generic ? lines : lines.filter(([, text]) => !message.includes(text));
    append(box, generic ? `The service refused ${lines.length === 1 ? 'this field' : 'these fields'}:` : message);
    if (listed.length) append(box, h('ul', null, listed.map(([name, text]) => h('li', null, h('code', null, name), ' ', text))));
  }
  if (err?.requestId) append(box, h('span', { class: 'request-id' }, 'Request id: ', h('code', null, err.requestId)));
  return box;
}

/**
 * The "Load more" button of a keyset-paged list. Each click fetches the page after the last
 * cursor (`fetchPage(cursor)`), gives its rows to `addRows`, and `status` says
 * `describe(shown, more)`; a failure is shown in `errorsTo`.
 */
export function loadMore({ page, fetchPage, addRows, status, describe, errorsTo }) {
  let shown = page.data.length;
  let cursor = page.next_cursor;
  const button = h('button', { type: 'button', class: 'secondary' }, 'Load more');
  const update = () => {
    button.hidden = !cursor;
    status.textContent = describe(shown, Boolean(cursor));
  };
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      const next = await fetchPage(cursor);
      addRows(next.data);
      shown += next.data.length;
      cursor = next.next_cursor;
      update();
    } catch (err) {
      errorsTo.append(errorBox(err));
    } finally {
      button.disabled = false;
    }
  });
  update();
  return button;
}

let toastTimer;
/** A short message in the polite live region. */
/** Hides the toast at once (on navigation: its message belongs to the page left). */
export function clearToast() {
  clearTimeout(toastTimer);
  document.getElementById('toast')?.classList.remove('show');
}

export function toast(message) {
  const el = document.getElementById('toast');
  if (!el) return;
  el.textContent = message;
  el.classList.add('show');
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => el.classList.remove('show'), 4000);
}

/** The standard page header: an h1 that takes focus after navigation, and an intro. */
export function pageHead(title, intro) {
  return h('div', { class: 'page-head' }, h('h1', { tabindex: '-1' }, title), intro ? h('p', null, intro) : null);
}

/** A busy indicator for a region being loaded. */
export function loading(what = 'Loading…') {
  return h('p', { class: 'muted', role: 'status' }, what);
}

/**
 * Focuses the submit button of the form after the heading `headingId`: after a one-time secret's
 * dialog the page is drawn anew, and the button that opened it (disabled while it ran) is gone.
 */
export function focusFormAfter(headingId) {
  const form = document.getElementById(headingId)?.nextElementSibling;
  form?.querySelector('button[type=submit]')?.focus();
}

/**
 * Focuses the first element that matches one of `selectors`, in order: after an action the page
 * is drawn anew, and the control that was pressed went with the old one. What cannot take focus
 * by itself (a table row) is made focusable by script only, so Tab does not stop on it.
 */
export function focusRedrawn(...selectors) {
  for (const selector of selectors) {
    const el = document.querySelector(selector);
    if (!el) continue;
    if (!el.matches('a[href], button:not(:disabled), input, select, textarea, [tabindex]')) el.tabIndex = -1;
    el.focus();
    return;
  }
}
