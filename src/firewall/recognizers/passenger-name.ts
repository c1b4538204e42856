// A passenger's name as airline and travel systems write it (IATA's PNR form): "MULLER/ANNA MRS",
// "DE VRIES/JAN MR", "KOWALSKI/PIOTR JAN". Surname, a slash, given names, all in capitals, often an
// honorific after them. Pasted from booking confirmations, boarding passes and agency tools, where
// the person recognizer (which reads names in their written order) misses it. Capitals joined by
// a slash are common in other text (TCP/IP, DEC/JAN, ROSE/IVORY, MERLOT/CHARLOTTE, SORT BY
// NAME/ANNA), so the evidence is a known surname before the slash and a known first name after it,
// neither also a common word, or an honorific after a name of which one part is known. Cost: one
// look at each "/" of the text.
import { isKnownFirstName, isKnownLastName } from '../gazetteer/index.js';
import { isNonNameWord } from '../words.js';
import type { Detection, Language, Recognizer } from '../types.js';

const HONORIFICS = new Set(['MR', 'MRS', 'MS', 'MISS', 'MSTR', 'DR', 'PROF']);
const SURNAME_PARTICLES = new Set(['DE', 'DA', 'DI', 'DEL', 'DOS', 'DU', 'LE', 'LA', 'VAN', 'VON', 'DER', 'DEN', 'TER', 'TEN', 'MAC', 'MC']);
// Given names after the slash, then an honorific: each word capitals (apostrophes and hyphens inside).
const GIVEN_Y = /(\p{Lu}[\p{Lu}'’-]{0,30})(?: (\p{Lu}[\p{Lu}'’-]{0,30}))?(?: (\p{Lu}{2,4}))?(?![\p{L}\p{N}/])/uy;
const CAPITAL = /[\p{Lu}'’-]/u;
const MAX_SURNAME = 40;

export function findPassengerNames(text: string): Detection[] {
  const out: Detection[] = [];
  for (let slash = text.indexOf('/'); slash >= 0; slash = text.indexOf('/', slash + 1)) {
    const start = surnameStart(text, slash);
    if (start < 0) continue;
    GIVEN_Y.lastIndex = slash + 1;
    const m = GIVEN_Y.exec(text);
    if (m === null) continue;
    const first = m[1]!;
    // The second word may be the honorific itself ("MULLER/ANNA MRS").
    const honorific = [m[3], m[2]].find((w) => w !== undefined && HONORIFICS.has(w));
    const givenWords = m[2] !== undefined && m[2] !== honorific ? 2 : 1;
    if (first.length < 2 || !namedSo(text.slice(start, slash), first, honorific !== undefined)) continue;
    const end = slash + 1 + first.length + (givenWords === 2 ? 1 + m[2]!.length : 0);
    out.push({ type: 'PERSON', start, end, text: text.slice(start, end), checksum: false });
  }
  return out;
}

function titleCase(word: string): string {
  return word[0] + word.slice(1).toLowerCase();
}

/** Whether a surname and first given name, in capitals, are a person's (see the module comment). */
function namedSo(surname: string, given: string, honorific: boolean): boolean {
  const last = titleCase(surname.slice(surname.lastIndexOf(' ') + 1));
  const first = titleCase(given);
  if (isNonNameWord(last) || isNonNameWord(first)) return false;
  const knownLast = isKnownLastName(last);
  const knownFirst = isKnownFirstName(first);
  return honorific ? knownLast || knownFirst : knownLast && knownFirst && !isKnownFirstName(last);
}

/** Where the surname before the slash at `slash` starts (a particle before it included), or -1. */
function surnameStart(text: string, slash: number): number {
  let i = slash;
  while (i > 0 && slash - i < MAX_SURNAME && CAPITAL.test(text[i - 1]!)) i--;
  if (slash - i < 2 || !/\p{Lu}/u.test(text[i]!) || wordCharBefore(text, i)) return -1;
  // "DE VRIES/JAN": one particle before the surname belongs to it.
  if (i >= 2 && text[i - 1] === ' ') {
    let p = i - 1;
    while (p > 0 && /\p{Lu}/u.test(text[p - 1]!) && i - 1 - p < 3) p--;
    if (SURNAME_PARTICLES.has(text.slice(p, i - 1)) && !wordCharBefore(text, p)) return p;
  }
  return i;
}

function wordCharBefore(text: string, at: number): boolean {
  return at > 0 && /[\p{L}\p{N}_/]/u.test(text[at - 1]!);
}

export const passengerNameRecognizer: Recognizer = {
  type: 'PERSON',
  needsDigit: false,
  detect(text: string, _language: Language): Detection[] {
    return text.indexOf('/') < 0 ? [] : findPassengerNames(text);
  },
};
