// How deep JSON from a caller may nest. Everything that walks a value by recursion (hashing a body
// for idempotency, JSON.stringify, masking tool arguments) would overflow the stack at some depth
// and answer 500; real requests (a JSON schema, tool arguments) stay far below this.
export const MAX_JSON_DEPTH = 64;

const OPEN_OBJECT = 0x7b; // {
const OPEN_ARRAY = 0x5b; // [
const CLOSE_OBJECT = 0x7d; // }
const CLOSE_ARRAY = 0x5d; // ]
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \

// How many members and elements a body may hold. Parsing is paid before anything can refuse, on
// the event loop, by the number of values more than by the bytes: 20 MiB of one string parses in
// ~60 ms, 8 MB of one object of 400,000 keys in ~350 ms (and ten such bodies held every request
// of the process for 5 s). Within these bounds a body parses in some 50 ms at worst; real requests
// (an agent's hundreds of messages, 24 tool schemas, 2,048 embedding inputs) stay far below.
export const MAX_JSON_KEYS = 150_000;
export const MAX_JSON_KEYS_PER_OBJECT = 10_000;
export const MAX_JSON_ELEMENTS = 1_000_000;

const COLON = 0x3a; // :
const COMMA = 0x2c; // ,

export interface JsonTextShape {
  /** It nests objects and arrays deeper than the depth asked about. */
  tooDeep: boolean;
  /** What it holds beyond MAX_JSON_KEYS, MAX_JSON_KEYS_PER_OBJECT or MAX_JSON_ELEMENTS, in words for a 413. */
  tooWide?: string;
}

/** The index of the quote that closes the string whose text starts at `from` (text.length when none does). */
function stringEnd(text: string, from: number): number {
  for (let i = from; ; i++) {
    i = text.indexOf('"', i);
    if (i < 0) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(i - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return i;
  }
}

/**
 * How JSON text nests and how many values it holds, in one pass over the characters outside its
 * strings (each string is skipped with a native search for its closing quote). The text need not
 * be valid JSON (tool arguments from a caller may be anything); its brackets are counted all the same.
 */
export function jsonTextShape(text: string, depthLimit = MAX_JSON_DEPTH): JsonTextShape {
  let keys = 0;
  let commas = 0;
  // Keys of each open object by depth, up to the depth limit: deeper, the body is refused for that.
  const keysAt = new Int32Array(depthLimit + 2);
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = stringEnd(text, i + 1);
    } else if (c === COLON) {
      if (++keys > MAX_JSON_KEYS) return { tooDeep: false, tooWide: `more than ${MAX_JSON_KEYS} object members in all` };
      if (depth > 0 && ++keysAt[depth]! > MAX_JSON_KEYS_PER_OBJECT) return { tooDeep: false, tooWide: `an object of more than ${MAX_JSON_KEYS_PER_OBJECT} members` };
    } else if (c === COMMA) {
      if (++commas > MAX_JSON_ELEMENTS) return { tooDeep: false, tooWide: `more than ${MAX_JSON_ELEMENTS} values` };
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > depthLimit) return { tooDeep: true };
      keysAt[depth] = 0;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      if (depth > 0) depth--;
    }
  }
  return { tooDeep: false };
}

/** Whether JSON text nests objects and arrays deeper than `limit` (see jsonTextShape). */
export function jsonTextDeeperThan(text: string, limit = MAX_JSON_DEPTH): boolean {
  return jsonTextShape(text, limit).tooDeep;
}

const SHOWN_SEGMENTS = 6;

/**
 * The dotted path (`response_format.json_schema.schema.properties…`) to the first value nested
 * deeper than `limit`, its first segments only; undefined when none is. Iterative, so it answers
 * for any depth.
 */
export function pathDeeperThan(value: unknown, limit = MAX_JSON_DEPTH): string | undefined {
  const stack: { node: unknown; depth: number; path: string[] }[] = [{ node: value, depth: 0, path: [] }];
  while (stack.length > 0) {
    const { node, depth, path } = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth + 1 > limit) {
      const shown = path.slice(0, SHOWN_SEGMENTS).join('.') || 'body';
      return path.length > SHOWN_SEGMENTS ? `${shown}…` : shown;
    }
    // Only the first segments are ever shown, so deeper paths stop growing.
    const child = (key: string) => (path.length < SHOWN_SEGMENTS + 1 ? [...path, key] : path);
    if (Array.isArray(node)) node.forEach((item, index) => stack.push({ node: item, depth: depth + 1, path: child(String(index)) }));
    else for (const [key, item] of Object.entries(node)) stack.push({ node: item, depth: depth + 1, path: child(key) });
  }
  return undefined;
}
