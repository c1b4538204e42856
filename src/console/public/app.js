import { api, ApiError, onSignOut, onUnauthorized, session } from './api.js';
import { clearToast, errorBox, field, h } from './dom.js';
import * as audit from './audit.js';
import * as keys from './keys.js';
import * as memory from './memory.js';
import * as settings from './settings.js';
import * as traces from './traces.js';
import * as usage from './usage.js';
import * as webhooks from './webhooks.js';

// The console shell: sign-in, navigation and hash routing (#/usage, #/traces/<id>?…).

const PAGES = { usage, traces, settings, memory, keys, webhooks, audit };
const DEFAULT_PAGE = 'usage';

const main = document.getElementById('main');
const nav = document.getElementById('nav');
const menuToggle = document.getElementById('menu-toggle');
const keyLabel = document.getElementById('key-label');

/** '#/traces/abc?application=x' → {page: 'traces', path: ['abc'], params: URLSearchParams}. */
export function parseHash(hash = location.hash) {
  const raw = hash.startsWith('#/') ? hash.slice(2) : '';
  const [pathPart, queryPart = ''] = raw.split('?', 2);
  const [page = '', ...path] = pathPart.split('/').map((p) => {
    try {
      return decodeURIComponent(p);
    } catch {
      return p;
    }
  });
  return { page, path, params: new URLSearchParams(queryPart) };
}

/** Builds '#/page/part?query' with the parts encoded and empty query values left out. */
export function hrefOf(page, path = [], params = {}) {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') query.set(k, String(v));
  const q = query.toString();
  return `#/${[page, ...path].map(encodeURIComponent).join('/')}${q ? `?${q}` : ''}`;
}

function setMenu(open) {
  nav.classList.toggle('open', open);
  menuToggle.setAttribute('aria-expanded', String(open));
}

menuToggle.addEventListener('click', () => setMenu(menuToggle.getAttribute('aria-expanded') !== 'true'));
nav.addEventListener('click', (event) => {
  if (event.target.closest('a')) setMenu(false);
});
document.addEventListener('keydown', (event) => {
  if (event.key === 'Escape' && nav.classList.contains('open')) {
    setMenu(false);
    menuToggle.focus();
  }
});
document.getElementById('skip-link').addEventListener('click', (event) => {
  // The link would change the hash route; move focus instead.
  event.preventDefault();
  main.focus();
});
document.getElementById('sign-out').addEventListener('click', () => {
  forgetSession();
  renderSignIn({ message: 'Signed out. The key is no longer held by this tab.' });
});

onUnauthorized((err) => {
  forgetSession();
  renderSignIn({ error: `The service refused the key: ${refusal(err)} Sign in again.` });
});

onSignOut((message) => {
  forgetSession();
  renderSignIn({ message });
});

/** The key, and what the pages hold of the session (an end-user typed into a filter), which the next key must not inherit. */
function forgetSession() {
  session.clear();
  memory.forgetShownUser();
  traces.forgetFilters();
}

/** The service's own reason for a 401 ("this API key expired at …"), as a sentence. */
function refusal(err) {
  const text = (err?.message ?? '').trim();
  if (!text) return 'it is unknown, revoked or mistyped.';
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

function maskedKey(key) {
  return key.length > 12 ? `${key.slice(0, 4)}…${key.slice(-4)}` : 'key';
}

function renderSignIn({ error, message } = {}) {
  document.body.classList.add('signed-out');
  document.title = 'Sign in · Polder console';
  keyLabel.textContent = '';
  const input = h('input', {
    type: 'password',
    name: 'api-key',
    autocomplete: 'off',
    spellcheck: 'false',
    autocapitalize: 'off',
    required: true,
    placeholder: 'pld_…',
  });
  const status = h('div', { 'aria-live': 'polite' });
  if (error) status.append(h('div', { class: 'alert error', role: 'alert' }, error));
  else if (message) status.append(h('div', { class: 'alert info' }, message));
  const submit = h('button', { type: 'submit' }, 'Sign in');
  const form = h(
    'form',
    {
      novalidate: true,
      onsubmit: async (event) => {
        event.preventDefault();
        const key = input.value.trim();
        status.replaceChildren();
        if (!key) {
          input.setAttribute('aria-invalid', 'true');
          status.append(h('div', { class: 'alert error', role: 'alert' }, 'Enter an API key.'));
          input.focus();
          return;
        }
        submit.disabled = true;
        submit.textContent = 'Checking…';
        try {
          // Any valid key may list the models: this checks the key without needing a scope.
          await api('/models', { key });
          session.set(key);
          input.value = '';
          const target = parseHash();
          if (!PAGES[target.page]) location.hash = hrefOf(DEFAULT_PAGE);
          else render();
        } catch (err) {
          input.setAttribute('aria-invalid', 'true');
          const shown =
            err instanceof ApiError && err.status === 401
              ? h('div', { class: 'alert error', role: 'alert' }, `That key was refused: ${refusal(err)}`)
              : errorBox(err, 'Could not sign in.');
          status.append(shown);
          input.focus();
        } finally {
          submit.disabled = false;
          submit.textContent = 'Sign in';
        }
      },
    },
    field('API key', input, 'Kept in this browser tab only (session storage) and sent with each request to this service. Closing the tab forgets it.'),
    h('div', { class: 'form-actions' }, submit),
  );
  main.replaceChildren(
    h(
      'div',
      { class: 'signin' },
      h(
        'div',
        { class: 'card' },
        h('h1', { tabindex: '-1' }, 'Sign in to the Polder console'),
        h('p', { class: 'muted' }, 'Usage, traces, router settings, memory and the audit log of the workspace your key belongs to.'),
        status,
        form,
      ),
    ),
  );
  input.focus();
}

async function render(options = {}) {
  const key = session.key;
  if (!key) {
    renderSignIn();
    return;
  }
  const route = parseHash();
  const page = PAGES[route.page];
  if (!page) {
    location.replace(hrefOf(DEFAULT_PAGE));
    return;
  }
  document.body.classList.remove('signed-out');
  keyLabel.textContent = maskedKey(key);
  keyLabel.title = 'The API key this tab is signed in with';
  for (const link of nav.querySelectorAll('a[data-page]')) {
    if (link.dataset.page === route.page) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  document.title = `${page.title} · Polder console`;
  clearToast();
  // Each render gets its own container: a slow answer for a page left behind lands in a
  // detached node and is never seen.
  const view = h('div', { class: 'view', 'data-page': route.page });
  main.replaceChildren(view);
  const done = page.render(view, { ...route, hrefOf, navigate: (href) => (location.hash = href) });
  // After a move within the console, focus goes to the new page's heading (screen readers
  // announce it); on the first load it stays at the top of the document.
  if (options.initial !== true) view.querySelector('h1')?.focus({ preventScroll: true });
  window.scrollTo(0, 0);
  try {
    await done;
  } catch (err) {
    view.append(errorBox(err));
  }
}

window.addEventListener('hashchange', () => render());
render({ initial: true });
