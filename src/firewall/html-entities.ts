// HTML as a pasted mail, a CRM's note or a ticket carries it: "Fran&ccedil;ois M&uuml;ller",
// "Anouk&nbsp;Visser", "Kastanjelaan&nbsp;31<br>3722&nbsp;GB&nbsp;Bilthoven<br>". Read as written,
// an entity cut a name in two ("Fran" masked, "&ccedil;ois M&uuml;ller" sent in clear), "&nbsp;"
// stood between a cue and its name ("Dear&nbsp;Mrs&nbsp;Clarke", "heer&nbsp;Jansen") so neither was
// read as such, and "<br>" glued the lines of an address into one line that no address rule reads.
//
// The detector reads a view of the text in which a character entity is the character it stands for
// (named ones of European text, and numeric ones: "&#233;", "&#xE9;"), and "<br>", "<p>", "</p>",
// "<div>" and "</div>" are line breaks; what it finds is moved back over the text as written, so the
// placeholder replaces a value with its entities and tags whole. The vault keeps the value decoded,
// which tool-call arguments take back, and as written, which a reply's text takes back: restoring
// the masked text gives the original byte for byte. See
// docs/decisions/0033-the-firewall-reads-decomposed-letters-and-html-entities.md.
//
// Only an entity with its ";" is read: "R&D", "Smit & Zonen", "a&b" and "&copy" are text as written.
// An entity that names a character not in the table stays as written. "&lt;br&gt;" is text about a
// tag, not a tag, and stays one line.
import type { Detection } from './types.js';
import { normalizeValue } from './vault.js';

export interface MarkupView {
  /** The text with its character entities decoded and its line-break tags as "\n". */
  readonly text: string;
  /** For each offset of the view (and its end), the offset in the text of what it was read from. */
  readonly at: Int32Array;
}

// The Latin-1 letters by their entity's name: each base letter with the accents HTML names for it.
const LATIN1_LETTERS: ReadonlyArray<readonly [string, number]> = [
  ['Agrave', 0xc0], ['Aacute', 0xc1], ['Acirc', 0xc2], ['Atilde', 0xc3], ['Auml', 0xc4], ['Aring', 0xc5], ['AElig', 0xc6],
  ['Ccedil', 0xc7], ['Egrave', 0xc8], ['Eacute', 0xc9], ['Ecirc', 0xca], ['Euml', 0xcb], ['Igrave', 0xcc], ['Iacute', 0xcd],
  ['Icirc', 0xce], ['Iuml', 0xcf], ['ETH', 0xd0], ['Ntilde', 0xd1], ['Ograve', 0xd2], ['Oacute', 0xd3], ['Ocirc', 0xd4],
  ['Otilde', 0xd5], ['Ouml', 0xd6], ['Oslash', 0xd8], ['Ugrave', 0xd9], ['Uacute', 0xda], ['Ucirc', 0xdb], ['Uuml', 0xdc],
  ['Yacute', 0xdd], ['THORN', 0xde], ['szlig', 0xdf],
  ['agrave', 0xe0], ['aacute', 0xe1], ['acirc', 0xe2], ['atilde', 0xe3], ['auml', 0xe4], ['aring', 0xe5], ['aelig', 0xe6],
  ['ccedil', 0xe7], ['egrave', 0xe8], ['eacute', 0xe9], ['ecirc', 0xea], ['euml', 0xeb], ['igrave', 0xec], ['iacute', 0xed],
  ['icirc', 0xee], ['iuml', 0xef], ['eth', 0xf0], ['ntilde', 0xf1], ['ograve', 0xf2], ['oacute', 0xf3], ['ocirc', 0xf4],
  ['otilde', 0xf5], ['ouml', 0xf6], ['oslash', 0xf8], ['ugrave', 0xf9], ['uacute', 0xfa], ['ucirc', 0xfb], ['uuml', 0xfc],
  ['yacute', 0xfd], ['thorn', 0xfe], ['yuml', 0xff],
];

// Letters beyond Latin-1 that HTML names and European names use (French, Czech, Polish, Croatian …).
const OTHER_LETTERS: ReadonlyArray<readonly [string, number]> = [
  ['OElig', 0x152], ['oelig', 0x153], ['Scaron', 0x160], ['scaron', 0x161], ['Yuml', 0x178], ['Zcaron', 0x17d], ['zcaron', 0x17e],
  ['Ccaron', 0x10c], ['ccaron', 0x10d], ['Cacute', 0x106], ['cacute', 0x107], ['Ecaron', 0x11a], ['ecaron', 0x11b],
  ['Eogon', 0x118], ['eogon', 0x119], ['Aogon', 0x104], ['aogon', 0x105], ['Lstrok', 0x141], ['lstrok', 0x142],
  ['Nacute', 0x143], ['nacute', 0x144], ['Sacute', 0x15a], ['sacute', 0x15b], ['Zacute', 0x179], ['zacute', 0x17a],
  ['Zdot', 0x17b], ['zdot', 0x17c], ['Rcaron', 0x158], ['rcaron', 0x159], ['Dstrok', 0x110], ['dstrok', 0x111],
  ['Uring', 0x16e], ['uring', 0x16f], ['Tcaron', 0x164], ['tcaron', 0x165], ['Ncaron', 0x147], ['ncaron', 0x148],
];

// Spaces, quotes and punctuation that stand between words. A quote reads as a typographic one, as
// an escaped quote does (string-escapes.ts): a straight one would end an attribute's value around it.
const PUNCTUATION: ReadonlyArray<readonly [string, string]> = [
  ['nbsp', '\u00a0'], ['ensp', '\u2002'], ['emsp', '\u2003'], ['thinsp', '\u2009'], ['shy', '\u00ad'],
  ['zwnj', '\u200c'], ['zwj', '\u200d'], ['lrm', '\u200e'], ['rlm', '\u200f'],
  ['amp', '&'], ['lt', '<'], ['gt', '>'], ['quot', '\u201d'], ['apos', "'"],
  ['lsquo', '\u2018'], ['rsquo', '\u2019'], ['sbquo', '\u201a'], ['ldquo', '\u201c'], ['rdquo', '\u201d'], ['bdquo', '\u201e'],
  ['laquo', '\u00ab'], ['raquo', '\u00bb'], ['ndash', '\u2013'], ['mdash', '\u2014'], ['hellip', '\u2026'],
  ['middot', '\u00b7'], ['bull', '\u2022'], ['euro', '\u20ac'], ['pound', '\u00a3'], ['copy', '\u00a9'], ['reg', '\u00ae'],
  ['deg', '\u00b0'], ['ordm', '\u00ba'], ['ordf', '\u00aa'], ['sect', '\u00a7'], ['para', '\u00b6'],
];

const NAMED = new Map<string, string>([
  ...LATIN1_LETTERS.map(([name, code]) => [name, String.fromCharCode(code)] as const),
  ...OTHER_LETTERS.map(([name, code]) => [name, String.fromCharCode(code)] as const),
  ...PUNCTUATION,
]);

// An entity with its ";", or a line-break tag with what attributes it has. Each try reads at most
// the next "<" or ">" or a few hundred characters: linear over the text.
const MARKUP = /&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,9});|<\/?(?:[bB][rR]|[pP]|[dD][iI][vV])(?=[\s/>])[^<>]{0,200}>/g;
const AMP = 38;
const HASH = 35;
const QUOTE = 34;

/** The characters an entity (from "&" to ";") stands for, or null for one that stays as written. */
function entityChars(entity: string): string | null {
  if (entity.charCodeAt(1) !== HASH) return NAMED.get(entity.slice(1, -1)) ?? null;
  const hex = entity.charCodeAt(2) === 120 || entity.charCodeAt(2) === 88;
  const code = Number.parseInt(entity.slice(hex ? 3 : 2, -1), hex ? 16 : 10);
  // A control character or a surrogate is a mistake or an attack, not text: as written.
  if (code === 9 || code === 10 || code === 13) return String.fromCharCode(code);
  if (code < 0x20 || (code >= 0x7f && code < 0xa0) || (code >= 0xd800 && code <= 0xdfff) || code > 0x10ffff) return null;
  if (code === QUOTE) return '\u201d';
  return String.fromCodePoint(code);
}

const BR = /^<\/?[bB][rR]/;

/**
 * What a line-break tag reads as: "\n", or nothing where a line breaks already. "<br>" breaks a
 * line but right before a line break of the text ("<br>\n", pretty-printed HTML). A block's tag
 * ("<div>", "</p>") breaks one but at the start of a line or before a line break: "</div><div>",
 * "</p>\n<p>" and Outlook's "<p class=MsoNormal>" per line are one line break each, so an address
 * written a line a block is read as lines, not as blocks apart.
 */
function breakOf(text: string, tag: string, afterBreak: boolean, end: number): string {
  let next = end;
  while (next < text.length && (text.charCodeAt(next) === 32 || text.charCodeAt(next) === 9)) next++;
  const c = text.charCodeAt(next);
  if (c === 10 || c === 13) return '';
  return BR.test(tag) || !afterBreak ? '\n' : '';
}

/** Whether the view ends with a line break before `at`: the text from `from` is copied into it as written. */
function breakBefore(text: string, from: number, at: number, afterBreak: boolean): boolean {
  let k = at;
  while (k > from && (text.charCodeAt(k - 1) === 32 || text.charCodeAt(k - 1) === 9)) k--;
  if (k === from) return afterBreak;
  const c = text.charCodeAt(k - 1);
  return c === 10 || c === 13;
}

/** Whether an "&" followed by a letter or "#", or a "<", occurs: what a text with markup has. */
function mayHoldMarkup(text: string): boolean {
  for (let i = text.indexOf('&'); i >= 0; i = text.indexOf('&', i + 1)) {
    const c = text.charCodeAt(i + 1);
    if (c === HASH || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)) return true;
  }
  return text.indexOf('<') >= 0;
}

/**
 * The view of `text` with its entities decoded and its line-break tags as "\n" (see the module
 * comment), or null when it has neither: most texts, at the cost of two indexOf.
 */
export function markupView(text: string): MarkupView | null {
  if (!mayHoldMarkup(text)) return null;
  const n = text.length;
  let parts: string[] | null = null;
  // A view is never longer than its text: an entity or a tag is longer than what it stands for.
  let at: Int32Array | null = null;
  let v = 0;
  let last = 0;
  MARKUP.lastIndex = 0;
  // Whether the view so far ends with a line break (its start counts as one).
  let afterBreak = true;
  for (let m = MARKUP.exec(text); m !== null; m = MARKUP.exec(text)) {
    const written = m[0];
    const end = m.index + written.length;
    let chars: string | null;
    if (written.charCodeAt(0) === AMP) {
      chars = entityChars(written);
      if (chars === null) continue;
    } else {
      chars = breakOf(text, written, breakBefore(text, last, m.index, afterBreak), end);
    }
    parts ??= [];
    at ??= new Int32Array(n + 1);
    for (let k = last; k < m.index; k++) at[v++] = k;
    for (let k = 0; k < chars.length; k++) at[v++] = m.index;
    parts.push(text.slice(last, m.index), chars);
    if (chars.length > 0) afterBreak = chars === '\n';
    else if (m.index > last) afterBreak = breakBefore(text, last, m.index, afterBreak);
    last = end;
  }
  if (parts === null || at === null) return null;
  for (let k = last; k < n; k++) at[v++] = k;
  at[v] = n;
  parts.push(text.slice(last));
  return { text: parts.join(''), at: at.subarray(0, v + 1) };
}

/**
 * Moves detections made on the view to the text's offsets, in place: spelled as written (entities
 * and tags), valued as read.
 */
export function fromMarkupView(text: string, view: MarkupView, detections: Detection[]): Detection[] {
  for (const d of detections) {
    d.start = view.at[d.start]!;
    d.end = view.at[d.end]!;
    const value = d.text;
    d.text = text.slice(d.start, d.end);
    if (d.text === value || d.urlDecoded !== undefined) continue;
    d.normalized ??= normalizeValue(d.type, value);
    // Tool-call arguments get the value as it reads; a reply's text, as written, so the masked
    // text restores to the original byte for byte (and HTML the model repeats stays HTML).
    d.escapedDecoded = value;
    d.escapedAsWritten = d.text;
  }
  return detections;
}
