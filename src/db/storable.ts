// Postgres' jsonb, and json once read as text, refuse two things JSON.stringify can write: the
// escape \u0000 and a lone surrogate (\ud800–\udfff without its pair, which JSON.stringify writes
// as an escape; a well-formed pair it writes as the character itself). A provider's answer may
// hold either, and one such value must not fail a statement that writes other requests' rows too.
// They are stored as U+FFFD, as Node already does when it writes such a string to a text column.

// The escape itself, not an escaped backslash followed by the letters "u0000": an even number of
// backslashes before it.
const UNSTORABLE_ESCAPE = /(?<!\\)((?:\\\\)*)\\u(?:0000|d[89a-f][0-9a-f]{2})/gi;

/** `value` as JSON for a json or jsonb parameter, the escapes Postgres refuses replaced by U+FFFD's. */
export function storableJson(value: unknown): string {
  const json = JSON.stringify(value) ?? 'null';
  // Nearly every text has no \u escape at all: one scan, and no regex.
  return json.includes('\\u') ? json.replace(UNSTORABLE_ESCAPE, '$1\\ufffd') : json;
}

/** A string bound for a text column, where Postgres refuses U+0000: stored as U+FFFD. */
export function storableText(text: string): string {
  return text.includes('\0') ? text.replaceAll('\0', '\uFFFD') : text;
}
