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

/**
 * Whether JSON text nests objects and arrays deeper than `limit`: one pass over the characters,
 * brackets inside strings not counted. The text need not be valid JSON (tool arguments from a
 * caller may be anything); its brackets are counted all the same.
 */
export function jsonTextDeeperThan(text: string, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth--;
    }
  }
  return false;
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
