// Text that must not be blank (an end-user's name, a fact, a document) holds one character that is
// neither a space nor invisible: zero-width spaces and joiners, word joiner, byte-order mark, soft
// hyphen. String.prototype.trim keeps those, so a "name" of one zero-width space passes it.

/** The spec's pattern (spec/openapi.yaml) for such text. */
export const VISIBLE_CHARACTER = '[^\\s\\u200B-\\u200D\\u2060\\uFEFF\\u00AD]';

const VISIBLE = new RegExp(VISIBLE_CHARACTER);

export function isBlank(text: string): boolean {
  return !VISIBLE.test(text);
}
