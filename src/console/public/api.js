// The one way the console talks to the service: the /v1 JSON APIs with the signed-in key.

const STORAGE = 'polder.console.key';

/** The API key lives in this tab's sessionStorage only: closing the tab forgets it. */
export const session = {
  get key() {
    try {
      return sessionStorage.getItem(STORAGE);
    } catch {
      return null;
    }
  },
  set(key) {
    sessionStorage.setItem(STORAGE, key);
  },
  clear() {
    try {
      sessionStorage.removeItem(STORAGE);
    } catch {
      /* storage unavailable: nothing to clear */
    }
  },
};

export class ApiError extends Error {
  constructor(status, body, requestId) {
    super(body?.message ?? `the service answered ${status}`);
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
    this.code = body?.code ?? null;
    this.requestId = requestId;
  }

  /** The scope a 403 insufficient_scope names ("this key lacks the scope usage.read"). */
  get scope() {
    if (this.code !== 'insufficient_scope') return null;
    return /scope ([a-z.]+)/.exec(this.message)?.[1] ?? null;
  }

  /** The message as the console shows it. */
  get friendly() {
    if (this.status === 403 && this.code === 'insufficient_scope') {
      const scope = this.scope;
      // A restricted key is refused keys whatever its scopes: another restricted key would not help.
      if (scope === 'keys.write') return 'Managing API keys needs an organization key. Sign in with one to use this.';
      if (scope) return `This key lacks the scope ${scope}. Sign in with a key that has it to use this.`;
      return `This key may not do this: ${this.message}.`;
    }
    if (this.status === 403 && this.code === 'egress_refused') return `Refused to protect EU residency: ${this.message}`;
    if (this.status === 0) return this.message;
    return this.message;
  }
}

let unauthorizedHandler = () => {};
let signOutHandler = () => {};

/** What signing out does (app.js): forget the key and show the sign-in page with `message`. */
export function onSignOut(handler) {
  signOutHandler = handler;
}

/** Signs out with a message (e.g. after revoking the key the console is signed in with). */
export function signOut(message) {
  signOutHandler(message);
}

/** What happens on a 401: the app returns to the sign-in page. */
export function onUnauthorized(handler) {
  unauthorizedHandler = handler;
}

/**
 * Calls /v1<path>. `query` entries that are empty are left out. Throws ApiError on a non-2xx
 * answer (after sending a 401 to the sign-in page, unless `key` was given explicitly).
 */
export async function api(path, { method = 'GET', query, body, key } = {}) {
  const secret = key ?? session.key;
  const url = new URL(`/v1${path}`, location.origin);
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null && value !== '') url.searchParams.set(name, String(value));
  }
  const headers = { accept: 'application/json' };
  if (secret) headers.authorization = `Bearer ${secret}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response;
  try {
    response = await fetch(url, {
      method,
      headers,
      cache: 'no-store',
      credentials: 'omit',
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  } catch {
    throw new ApiError(0, { message: 'The service could not be reached. Check the connection and try again.' }, null);
  }
  const text = await response.text();
  let data;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch {
    data = undefined;
  }
  if (!response.ok) {
    const err = new ApiError(response.status, data, response.headers.get('x-request-id'));
    if (response.status === 401 && key === undefined) unauthorizedHandler(err);
    throw err;
  }
  return data;
}

// What the signed-in key is and may do (GET /v1/key), asked once per key.
const selves = new Map();

/** The signed-in key as GET /v1/key shows it: id, kind, scopes, workspace, limits. */
export function currentKey() {
  if (!selves.has(session.key)) {
    const asked = api('/key').then((answer) => answer.data);
    // A failure is not remembered: the next page asks again.
    asked.catch(() => selves.delete(session.key));
    selves.set(session.key, asked);
  }
  return selves.get(session.key);
}

/** Whether the signed-in key holds `scope` (an organization key holds every one). */
export async function holdsScope(scope) {
  const key = await currentKey();
  return key.kind === 'organization' || key.scopes.includes(scope);
}
