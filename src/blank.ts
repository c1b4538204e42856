// Text that must not be blank (an end-user's name, a fact, a document) holds one character that is
// neither a space nor invisible: zero-width spaces and joiners, direction marks, embeddings and
// isolates, word joiner and invisible operators, byte-order mark, soft hyphen, combining grapheme
// joiner, Hangul fillers, Mongolian vowel separator, braille blank. String.prototype.trim keeps
// those, so a "name" of one zero-width space, or of a Hangul filler, passes it.

/** The spec's pattern (spec/openapi.yaml) for such text. */
export const VISIBLE_CHARACTER = '[^\\s\\u200B-\\u200F\\u202A-\\u202E\\u2060-\\u2064\\u2066-\\u2069\\uFEFF\\u00AD\\u034F\\u115F\\u1160\\u3164\\uFFA0\\u180E\\u2800]';

const VISIBLE = new RegExp(VISIBLE_CHARACTER);

export function isBlank(text: string): boolean {
  return !VISIBLE.test(text);
}
