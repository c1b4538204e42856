// Addresses without a postcode (address.ts needs one): a street named by a street word of the
// four languages with its house number ("Kastanjelaan 31", "Goethestr. 18", "Lange Str. 3",
// "22 rue Victor Hugo", "14 Elm Grove Road", in lower case after "op de"/"in de"), a French street
// in lower case or type first ("12 rue de la paix", "bd voltaire 23"), a German or Dutch street
// named after a preposition ("Am Rosenhang 4a", "Op de Kamp 3"), a postcode glued to its town
// ("10627Berlin") or given with its label ("postcode 3531 KG huisnummer 16", "PLZ 79098", "code
// postal 67000"); and the town after such a street ("Dorpsstraat 12 in Hoogeveen").
//
// Anchored on the digit runs of the pre-scan, like every recognizer that needs a digit: the street
// word is read backwards from the number (at most one word of STREET_WORD_MAX characters, or five
// words for a French type first), or the French/English street forwards from it with sticky
// regexes of bounded repetition; the label of a postcode in a window of LABEL_WINDOW characters
// before it. Linear in the text.
import { isDigitCode, isLetterCode, registerCue, scanOf, type TextScan } from '../scan.js';
import { isFunctionWord } from '../language-words.js';
import { isNonNameWord } from '../words.js';
import { houseTailEnd } from './house-number.js';
import type { Detection, Language, Recognizer } from '../types.js';

// Street words that end a Dutch or German street name written as one word.
const SUFFIXES = [
  'straat', 'weg', 'laan', 'gracht', 'plein', 'kade', 'singel', 'dijk', 'dreef', 'steeg', 'pad', 'hof', 'wal', 'markt', 'park', 'baan',
  'straße', 'strasse', 'str.', 'allee', 'gasse', 'platz', 'ring', 'damm', 'ufer', 'chaussee', 'pfad', 'steig', 'zeile',
];
const STREET_WORD_MAX = 48;
// A one-word street is longer than its street word by two letters at least, and ends as one does.
const SHORTEST_STREET = Math.min(...SUFFIXES.map((s) => s.length)) + 2;
const SUFFIX_LAST = new Set(SUFFIXES.map((s) => s.charCodeAt(s.length - 1) | 32));

// After the house number: a unit or a count means it was not a house number ("Straße 5 Kilometer").
// Not the Polish flat's "m. 3" after the number (mieszkanie: "ul. Długiej 7 m. 3" was sent in clear).
const NOT_A_HOUSE = /^[ \u00a0]*(?:%|km|m\b(?!\.[ \u00a0]?\d)|kg|minuten|minutes|min\b|uur|stunden|heures|hours|euro|eur|€|kilometer|meter|jahre|jaar|ans|years|mal|keer|fois|times)/iu;
// A house number: digits and an optional letter or range ("7a", "12-14", "3 bis").
const HOUSE_Y = /\d{1,4}(?:[a-zA-Z](?![\p{L}\p{N}])|[-/]\d{1,4}|[ ](?:bis|ter|quater)(?![\p{L}]))?(?![\p{L}\p{N}])/uy;

// After the number: a French street ("rue Victor Hugo", "boulevard de la Liberté", "chemin des Vignes").
const FR_STREET_Y =
  /,?[ \u00a0]+(?:rue|avenue|av\.|boulevard|bd|chemin|allée|impasse|place|quai|route|cours|square|passage|promenade|sentier)(?:[ \u00a0]+(?:de la|de l['’]|du|des|de|d['’]|la|le|les|l['’]|aux|au)(?=[ \u00a0\p{Lu}]))?[ \u00a0]*(?:\p{Lu}[\p{L}'’-]*)(?:[ \u00a0]+(?:(?:de la|du|des|de|d['’]|la|le|les|l['’]|aux|au)[ \u00a0]+)?\p{Lu}[\p{L}'’-]*){0,3}/uy;
// After the number: an English street ("Elm Grove Road", "Station Lane", "Kings Street").
// An ordinal among the words, as American streets are numbered ("221 West 57th Street").
const EN_STREET_Y =
  /,?[ \u00a0]+(?:(?:\p{Lu}[\p{L}'’-]*|\d{1,3}(?:st|nd|rd|th))[ \u00a0]+){1,3}(?:Street|St\.?|Road|Rd\.?|Lane|Ln|Avenue|Ave|Drive|Close|Way|Grove|Crescent|Place|Square|Terrace|Gardens|Court|Row|Mews|Walk|Hill|Parade|Rise)(?![\p{L}\p{N}])/uy;
const EN_STREET_ANY_CASE_Y =
  /,?[ \u00a0]+(?:\p{L}[\p{L}'’-]{0,30}[ \u00a0]+){1,3}(?:street|st|road|rd|lane|ln|avenue|ave|drive|close|way|grove|crescent|place|square|terrace|gardens|court|row|mews|walk|hill|parade|rise)\.?(?![\p{L}\p{N}])/iuy;
// After an English street, its town (maybe) and a UK postcode, in any case: ", bristol bs6 7ht".
// The postcode's digit lies within this many characters of the house number.
const UK_TAIL_MAX = 240;
const UK_TOWN_POSTCODE_Y =
  /,?[ \u00a0]*(?:\p{L}[\p{L}'’-]{1,30}(?:[ \u00a0]\p{L}[\p{L}'’-]{1,30}){0,2},?[ \u00a0]+)?(?:[a-z]{1,2}\d[a-z\d]?[ \u00a0]?\d[a-z]{2}|gir[ \u00a0]?0aa)(?![\p{L}\p{N}])/iuy;
// A home's address told in chat, in lower case: "she lives at 22 baker street", "I live at 14 elm
// grove road, bristol", "flat 3, 14 elm grove road" (QA 2026-11-27c: sent in clear, while "22 Baker
// Street" was masked). Lower case is no evidence of a street, so only after a word of dwelling, or
// after a flat's or apartment's number, which an address alone has ("Apt 4B, 221 West 57th
// Street"); the flat's part is the address's. Read over the EN_DWELLING_WINDOW characters before the
// number.
const EN_DWELLING_BEFORE =
  /(?:(?:^|[^\p{L}])(?:lives?|living|lived|resides?|residing|stay(?:s|ing)?)[ \u00a0]+(?:at|on)|(?:^|[^\p{L}])(?:my|our|her|his|their)[ \u00a0]+(?:home[ \u00a0]+)?address[ \u00a0]+is|((?:^|[^\p{L}])(?:flat|apt\.?|apartment|unit|suite)[ \u00a0]+\d{1,4}[a-z]?,?))[ \u00a0]*:?[ \u00a0]*$/iu;
const EN_DWELLING_WINDOW = 40;
const EN_DWELLING_WORD = /liv|resid|stay|address|flat|apt|apartment|unit|suite/i;
// After such a street, its town in any case when it ends the text, the line or the sentence
// (", bristol"); an American town, state and ZIP code (", New York, NY 10019").
const EN_TOWN_END_Y = /,[ \u00a0]{0,2}(\p{L}[\p{L}'’-]{1,30}(?:[ \u00a0]\p{L}[\p{L}'’-]{1,30}){0,2})(?=$|[\n.!?;)])/uy;
const US_TOWN_STATE_ZIP_Y = /,[ \u00a0]{0,2}\p{Lu}[\p{L}'’.-]{1,30}(?:[ \u00a0]\p{Lu}[\p{L}'’.-]{1,30}){0,2},[ \u00a0]{0,2}[A-Z]{2}[ \u00a0]+\d{5}(?:-\d{4})?(?![\p{L}\p{N}])/uy;

/** Where a word of dwelling or a flat's number before the house number at `p` lets its street begin, or -1. */
function englishDwellingStart(text: string, p: number): number {
  const from = Math.max(0, p - EN_DWELLING_WINDOW);
  const before = text.slice(from, p);
  // Most numbers in chat count things ("3 days"): a plain search for the words rules them out first.
  if (!EN_DWELLING_WORD.test(before)) return -1;
  const m = EN_DWELLING_BEFORE.exec(before);
  if (m === null) return -1;
  if (m[1] === undefined) return p;
  const flat = from + m.index + m[1].search(/\p{L}/u);
  return flat;
}

/** The end of the town (and state and ZIP code) after a street told in chat that ends at `end`, or `end`. */
function englishTownAfter(text: string, end: number): number {
  const us = sticky(US_TOWN_STATE_ZIP_Y, text, end);
  if (us > 0) return us;
  EN_TOWN_END_Y.lastIndex = end;
  const m = EN_TOWN_END_Y.exec(text);
  return m !== null && townWord(firstTownWord(m[1]!)) ? EN_TOWN_END_Y.lastIndex : townAfter(text, end);
}

// French streets in lower case, as chat writes them ("12 rue de la paix", "5 avenue jean jaurès",
// "bd voltaire 23"), and in the Belgian order, type first ("Rue de la Loi 16"). In lower case the
// words of the name are read one by one up to a function word ("… depuis 2019", "… à lyon"), since
// no capital says where the name ends. Lower case is not evidence of an address, so only the type
// words that are nothing else lead one there ("3 cours de maths", "2 place de parking", "je suis
// allée 3 fois", "5 bd de tintin" are not addresses); after a word of dwelling ("j'habite au …",
// "domicile : …") every type does.
const FR_TYPES_LOWER = new Set(['rue', 'avenue', 'av.', 'boulevard', 'bd', 'impasse', 'chaussée']);
const FR_TYPES_ANY = new Set([...FR_TYPES_LOWER, 'allée', 'chemin', 'place', 'quai', 'cours', 'square', 'passage', 'promenade', 'sentier']);
const FR_TYPE_Y =
  /,?[ \u00a0]+(rue|avenue|av\.|boulevard|bd|impasse|chaussée|allée|chemin|place|quai|cours|square|passage|promenade|sentier)[ \u00a0]+(?:(?:de la|du|des|de|la|le|les|aux|au)[ \u00a0]+)?/iuy;
// A word of the name; an elided article belongs to it ("l'église", "d'orsay").
const FR_NAME_WORD_Y = /\p{L}[\p{L}'’-]{1,30}(?![\p{L}\p{N}])/uy;
const FR_PARTICLE_Y = /(?:de la|du|des|de|la|le|les|aux|au)[ \u00a0]+/uy;
const FR_PARTICLES = new Set(['de', 'du', 'des', 'la', 'le', 'les', 'aux', 'au']);
const FR_DWELLING_BEFORE = /(?:habit\p{L}*|domicil\p{L}*|adresse|demeur\p{L}*|résid\p{L}*)[ \u00a0:]+(?:(?:au|à|le|du)[ \u00a0]+)?$/iu;
const FR_WINDOW = 24;
const FR_WORD_MAX = 31;

// Chat's words that end a request rather than name a street: "… rue de la paix svp".
const FR_NOT_NAME = new Set(['à', 'svp', 'stp', 'pls', 'asap', 'bisous', 'bises']);

function isFrenchNameWord(word: string): boolean {
  return !isFunctionWord(word) && !isNonNameWord(word) && !FR_NOT_NAME.has(word.toLowerCase());
}

/** Whether a word of dwelling comes right before `at` ("j'habite au ", "domicile : "). */
function dwellingBefore(text: string, at: number): boolean {
  return FR_DWELLING_BEFORE.test(text.slice(Math.max(0, at - FR_WINDOW), at));
}

/** Whether the type word as written leads a street here: any when capitalised, in lower case the unambiguous ones or after a word of dwelling. */
function frenchTypeLeads(type: string, text: string, at: number): boolean {
  const lower = type.toLowerCase();
  return (type[0] !== lower[0] ? FR_TYPES_ANY : FR_TYPES_LOWER).has(lower) || dwellingBefore(text, at);
}

/** End of a French street written in any case right after the house number that ends at `at` (it starts at `p`), or -1. */
function frenchStreetAfter(text: string, at: number, p: number): number {
  FR_TYPE_Y.lastIndex = at;
  const m = FR_TYPE_Y.exec(text);
  if (m === null || !frenchTypeLeads(m[1]!, text, p)) return -1;
  // "5 bd de tintin": in lower case "bd" is as often a comic book; "23 bd voltaire" is a street.
  if (m[1] === 'bd' && FR_TYPE_Y.lastIndex - at > m[0].indexOf('bd') + 3 && !dwellingBefore(text, p)) return -1;
  let end = -1;
  let i = FR_TYPE_Y.lastIndex;
  // At most three words: "rue du faubourg saint honoré"; a word more is a verb as often.
  for (let k = 0; k < 3; k++) {
    FR_NAME_WORD_Y.lastIndex = i;
    const w = FR_NAME_WORD_Y.exec(text);
    if (w === null || !isFrenchNameWord(w[0])) break;
    end = FR_NAME_WORD_Y.lastIndex;
    const c = text.charCodeAt(end);
    if (c !== 32 && c !== 0xa0) break;
    // "avenue du général de gaulle": a particle between two words of the name.
    FR_PARTICLE_Y.lastIndex = end + 1;
    i = FR_PARTICLE_Y.test(text) ? FR_PARTICLE_Y.lastIndex : end + 1;
  }
  return end;
}

/**
 * Start of a French street named type first right before its house number ("bd voltaire 23",
 * "Rue de la Loi 16"; `at` is the space before the number), or -1. At most five words back.
 */
function frenchTypeFirstBefore(text: string, at: number): number {
  // Most numbers have no street type among the words before them: find one first, with character
  // tests only, and read the words of the name only then.
  const starts: number[] = [];
  let i = at;
  let type = -1;
  let typeEnd = -1;
  for (let k = 0; k < 5 && type < 0; k++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 0xa0) return -1;
    let s = i;
    if (text.charCodeAt(s - 1) === 46) s--; // "av."
    const end = s;
    while (s > 0 && i - s <= FR_WORD_MAX && (isLetter(text.charCodeAt(s - 1)) || isWordJoiner(text.charCodeAt(s - 1)))) s--;
    if (s === end || (s > 0 && isLetter(text.charCodeAt(s - 1)))) return -1;
    if (k > 0 && i - s <= 9 && FR_TYPE_FIRST_LETTERS.includes(text[s]!.toLowerCase()) && FR_TYPES_ANY.has(text.slice(s, i).toLowerCase())) {
      type = s;
      typeEnd = i;
    }
    else if (end < i) return -1; // a full stop ends the name
    else starts.push(s);
    i = s - 1;
  }
  if (type < 0 || !frenchTypeLeads(text.slice(type, typeEnd), text, type)) return -1;
  // The words between, from the number back: a name word last, particles only before name words.
  let names = 0;
  for (let w = 0; w < starts.length; w++) {
    const word = text.slice(starts[w], w === 0 ? at : starts[w - 1]! - 1).toLowerCase();
    if (isFrenchNameWord(word)) names++;
    else if (names === 0 || !FR_PARTICLES.has(word)) return -1;
  }
  return names > 0 ? type : -1;
}
const FR_TYPE_FIRST_LETTERS = 'rabicpqs';
// The pre-scan marks the words that may be a street type, so that a number with none in the
// FR_BACK characters before it is not read backwards at all (most numbers in prose).
const FR_TYPE_BIT = registerCue('(?:rue|avenue|av\\.|boulevard|bd|impasse|chaussée|allée|chemin|place|quai|cours|square|passage|promenade|sentier)');
const FR_BACK = 5 * (FR_WORD_MAX + 2);

// Spanish, Italian and Polish streets, type first ("Calle de Alcalá 145", "C/ Mayor 5", "Avenida de
// la Constitución 12", "Via Roma 10", "Piazza Garibaldi 3", "ul. Floriańska 12", "al. Jerozolimskie
// 44"): before, sent in clear. The name is capitalised words and the particles between them, at most
// four words back from the number. The abbreviations ("ul.", "C/", "Avda.") and a capitalised type
// lead a street wherever they stand; a full type word in lower case is as often a word of prose
// ("il corso Python 3", "sent via Dropbox 2 …"), so there it needs a word before it that leads an
// address or a town after the number.
const SOUTH_TYPES = new Set(
  `calle c/ avenida avda. av. paseo pº plaza pza. camino carretera ronda travesía glorieta
  via viale piazza piazzale corso largo vicolo strada contrada lungomare
  ul. ulica al. aleja aleje pl. plac os. osiedle
  rua travessa praça estrada alameda calçada beco`.split(/\s+/),
);
const SOUTH_ABBREVIATIONS = new Set(['c/', 'avda.', 'av.', 'pº', 'pza.', 'ul.', 'al.', 'pl.', 'os.']);
const SOUTH_PARTICLES = new Set(['de', 'del', 'la', 'las', 'los', 'el', 'di', 'della', 'delle', 'dei', 'degli', 'dello', 'da', 'san', 'santa', 'do', 'dos', 'das']);
const SOUTH_TYPE_BIT = registerCue(
  '(?:calle|c/|avenida|avda\\.|av\\.|paseo|pº|plaza|pza\\.|camino|carretera|ronda|travesía|glorieta|via|viale|piazza|piazzale|corso|largo|vicolo|strada|contrada|lungomare|ul\\.|ulica|al\\.|aleja|aleje|pl\\.|plac|os\\.|osiedle|rua|travessa|praça|estrada|alameda|calçada|beco)',
);
const SOUTH_LEAD_BEFORE = /(?:^|[^\p{L}])(?:in|en|a|al|w|na|no|em|przy|vivo|abito|mieszkam|moro|resido|morada|residente|domicilio|indirizzo|dirección|direccion|adres|adresse)[ \u00a0:]*$|[:\n][ \u00a0]*$/iu;
const SOUTH_WORD_MAX = 31;
const SOUTH_BACK = 5 * (SOUTH_WORD_MAX + 2);

/** Start of a Spanish, Italian or Polish street named type first right before `at` (the space before its number), or -1. */
function southTypeFirstBefore(text: string, at: number): number {
  let i = at;
  let names = 0;
  // Names in lower case, as chat writes them ("vivo en calle mayor 5, 28013 madrid"): a street only
  // with its postcode and town after the number (QA 2026-11-27c).
  let lowerNames = 0;
  // "C/ Mayor, 5", as Spanish often writes it: a comma before the number, after an abbreviated type only.
  let comma = false;
  for (let k = 0; k < 5; k++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 0xa0) return -1;
    let s = i;
    while (s > 0 && i - s <= SOUTH_WORD_MAX && !isBlankCode(text.charCodeAt(s - 1))) s--;
    if (s === i || i - s > SOUTH_WORD_MAX) return -1;
    let word = text.slice(s, i);
    // "C/ Mayor nº 5", "Via Roma n. 10": the number's sign.
    if (k === 0 && NUMBER_SIGN.test(word)) {
      i = s - 1;
      continue;
    }
    if (names === 0 && word.length > 1 && word.endsWith(',')) {
      comma = true;
      word = word.slice(0, -1);
      if (!isCapitalised(word) || /[^\p{L}'’-]/u.test(word) || isNonNameWord(word)) return -1;
      names++;
      i = s - 1;
      continue;
    }
    // "C/Mayor 5": the type glued to the name; a name of letters only ("C/C++ 17 builds" is a language).
    if (k === 0 && (word.startsWith('C/') || word.startsWith('c/')) && word.length > 2) {
      const name = word.slice(2);
      return isCapitalised(name) && !/[^\p{L}'’-]/u.test(name) && !isNonNameWord(name) && !notAHouseAfter(text, at + 1) ? s : -1;
    }
    const lower = word.toLowerCase();
    if (names > 0 && SOUTH_TYPES.has(lower)) {
      if (lowerNames > 0) return !comma && postcodeAfterNumber(text, at + 1) ? s : -1;
      if (lower === 'al.' && /(?:^|[^\p{L}])et[ \u00a0]$/u.test(text.slice(Math.max(0, s - 4), s))) return -1; // "et al."
      // "Piazza San Marco 1 day", "Piazza del Campo 11 am", "Calle Larga 22 Marzo": a count, a time
      // or a date, not a house number.
      if (notAHouseAfter(text, at + 1)) return -1;
      if (SOUTH_ABBREVIATIONS.has(lower)) return s;
      if (comma) return -1;
      const before = text.slice(Math.max(0, s - 24), s);
      if (!isCapitalised(word)) return SOUTH_LEAD_BEFORE.test(before) || townAfterNumber(text, at + 1) ? s : -1;
      // A capitalised "Via", "Piazza", "Calle" is as often English prose's ("Send it Via FedEx 2
      // Day", "Carrier: Via Express 24", "Room: Via Lattea 3" were masked): a street where a word
      // before it leads an address, a town follows the number, the street is a line of its own
      // (an address block), or the words around it are Spanish, Italian or Polish.
      return SOUTH_LEAD_WORD_BEFORE.test(before) ||
        townAfterNumber(text, at + 1) ||
        lineOfItsOwn(text, s, at + 1) ||
        southernAround(text, s, at + 1)
        ? s
        : -1;
    }
    if (SOUTH_PARTICLES.has(lower)) {
      if (names === 0) return -1;
    } else {
      word = word.replace(/[,;:]$/, '');
      if (word.length !== i - s || /[^\p{L}'’-]/u.test(word)) return -1;
      if (!isCapitalised(word)) {
        if (isFunctionWord(word)) return -1;
        lowerNames++;
      } else if (isNonNameWord(word)) return -1;
      names++;
    }
    i = s - 1;
  }
  return -1;
}

// The words before a capitalised type that lead an address: those of SOUTH_LEAD_BEFORE without the
// colon (a label's: "Carrier:", "Room:"), and the prepositions of the four languages ("at", "op",
// "nach", "chez") — "meet me at Piazza del Campo 11 am" keeps its time by NOT_A_HOUSE_SOUTH.
const SOUTH_LEAD_WORD_BEFORE =
  /(?:^|[^\p{L}])(?:in|en|a|al|w|na|no|em|przy|vivo|abito|mieszkam|moro|resido|morada|residente|domicilio|indirizzo|dirección|direccion|adres|adresse|address|at|on|to|from|near|op|aan|naar|bij|te|nach|bei|an|auf|à|au|chez)[ \u00a0:]*$/iu;
// After a southern street's number: a count, a time or a date, in the languages a traveller writes.
const NOT_A_HOUSE_SOUTH =
  /^[ \u00a0]*(?:days?|nights?|weeks?|months?|years?|hours?|hrs?|h|mins?|minutes?|stops?|times|x|am|pm|a\.m\.|p\.m\.|o['’]clock|builds?|modules?|giorn[oi]|nott[ei]|settiman[ae]|or[ae]|volte|fermat[ae]|d[ií]as?|noches?|semanas?|horas?|veces|paradas?|dni|dzień|godz(?:in[ay]?)?|razy|przystan[ek]+|january|february|march|april|june|july|august|september|october|november|december|enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre|gennaio|febbraio|aprile|maggio|giugno|luglio|settembre|ottobre|dicembre|stycznia|lutego|marca|kwietnia|maja|czerwca|lipca|sierpnia|września|października|listopada|grudnia)(?![\p{L}])/iu;

/** Whether the number at `p` is followed by a count's, a time's or a date's word (NOT_A_HOUSE_SOUTH). */
function notAHouseAfter(text: string, p: number): boolean {
  const number = sticky(HOUSE_Y, text, p);
  return number > 0 && NOT_A_HOUSE_SOUTH.test(text.slice(number, number + 16));
}

/** Whether the street from `start` to its number at `p` (and the flat's part) is all of its line. */
function lineOfItsOwn(text: string, start: number, p: number): boolean {
  let b = start;
  while (b > 0 && (text.charCodeAt(b - 1) === 32 || text.charCodeAt(b - 1) === 9)) b--;
  if (b > 0 && text.charCodeAt(b - 1) !== 10) return false;
  const number = sticky(HOUSE_Y, text, p);
  if (number < 0) return false;
  let e = houseTailEnd(text, number);
  while (e < text.length && (text.charCodeAt(e) === 32 || text.charCodeAt(e) === 9 || text.charCodeAt(e) === 44)) e++;
  return e >= text.length || text.charCodeAt(e) === 10 || text.charCodeAt(e) === 13;
}

// Function words of Spanish, Italian and Polish that English, Dutch, German and French do not have
// (or share with them, see southernAround): "Vivo en la Calle Mayor 5", "il negozio è in …".
const SOUTHERN_WORDS = new Set(
  `el los las del y es está están estoy con por para una muy pero como su sus al lo la de en e di da
  il gli della delle dei degli nel nella è sono non che per ho ha siamo abito vicino
  w z na się jest nie przy od że oraz dla jestem mieszkam`.split(/\s+/),
);
const SOUTHERN_BEFORE = 100;
const SOUTHERN_AFTER = 60;

/**
 * Whether the words around a street at [start, p) are Spanish, Italian or Polish rather than of
 * the four languages: more of SOUTHERN_WORDS than of the others' function words, within
 * SOUTHERN_BEFORE characters before and SOUTHERN_AFTER after (bounded per street).
 */
function southernAround(text: string, start: number, p: number): boolean {
  const from = Math.max(0, start - SOUTHERN_BEFORE);
  const to = Math.min(text.length, p + SOUTHERN_AFTER);
  let south = 0;
  let other = 0;
  const window = text.slice(from, to);
  WORDS_G.lastIndex = 0;
  for (let m = WORDS_G.exec(window); m !== null; m = WORDS_G.exec(window)) {
    if (from + m.index >= start && from + m.index < p) continue; // the street's own words
    const w = m[0].toLowerCase();
    if (SOUTHERN_WORDS.has(w)) south++;
    else if (isFunctionWord(w)) other++;
  }
  return south > 0 && south > other;
}
const WORDS_G = /[\p{L}]{1,20}/gu;

const NUMBER_SIGN = /^(?:n[º°]|n\.[º°]|nº\.|no\.|n\.|núm\.|num\.|nr\.?)$/iu;

function isCapitalised(word: string): boolean {
  const c = word.charCodeAt(0);
  return (c >= 65 && c <= 90) || (c > 127 && word[0] !== word[0]!.toLowerCase());
}

function isBlankCode(c: number): boolean {
  return c === 32 || c === 0xa0 || c === 9 || c === 10 || c === 13;
}

function isWordJoiner(c: number): boolean {
  return c === 45 || c === 39 || c === 0x2019;
}

// A glued postcode and town: "10627Berlin", "6821GR Arnhem" is address.ts's.
const GLUED_Y = /\d{4,5}\p{Lu}\p{Ll}{2,}(?:-\p{Lu}\p{Ll}+)?/uy;
// A postcode after its label: NL "1234 AB", or four or five digits.
const LABELLED_Y = /(?:[1-9]\d{3}[ \u00a0]?[A-Z]{2}(?![\p{L}\p{N}])|\d{4,5}(?![\p{L}\p{N}]|[.,]\d))/uy;
// A label that names the town as well ("PLZ/Ort:", "Postcode en woonplaats:", "CP / Ville :") has
// the town after the postcode (group 1): it is the address's, in capitals too ("PLZ/ORT: 80331
// MÜNCHEN" was sent in clear).
const LABEL_BEFORE =
  /(?:postcode|post code|postal code|zip(?: code)?|plz|postleitzahl|code postal|cp)([ \u00a0]?(?:[/,&+]|und|en|and|et)[ \u00a0]?(?:ort|wohnort|stadt|woonplaats|plaats|city|town|ville|localité))?[ \u00a0]*[:.]?[ \u00a0]*$/iu;
const LABEL_WINDOW = 32;
const HOUSE_NUMBER_AFTER = /^[ ,\u00a0]*(?:huisnummer|hausnummer|house number|house no\.?|numéro|no\.|nr\.?)[ :\u00a0]*\d/iu;

const isLetter = isLetterCode;

function digitsAt(text: string, p: number): number {
  let n = 0;
  while (n < 5 && isDigitCode(text.charCodeAt(p + n))) n++;
  return n;
}

/**
 * Start of a one-word street ending in a street word right before `at` (the space before the
 * number), or -1. In lower case it needs a word that leads an address before it, or a town after
 * its number.
 */
function streetWordBefore(text: string, at: number): number {
  let i = at;
  const stop = Math.max(0, at - STREET_WORD_MAX);
  while (i > stop && (isLetter(text.charCodeAt(i - 1)) || text.charCodeAt(i - 1) === 45 || (i === at && text.charCodeAt(i - 1) === 46))) i--;
  if (i === at || (i > 0 && (isLetter(text.charCodeAt(i - 1)) || isDigitCode(text.charCodeAt(i - 1))))) return -1;
  const word = text.slice(i, at);
  const first = word.charCodeAt(0);
  const capitalised = (first >= 65 && first <= 90) || (first > 127 && word[0] !== word[0]!.toLowerCase());
  // Most lower-case words before a number are short or end in no street word ("om 8", "kost 12"):
  // ruled out with character tests, as the lead-word regex did before this ran.
  if (!capitalised && (word.length < SHORTEST_STREET || !SUFFIX_LAST.has(word.charCodeAt(word.length - 1) | 32))) return -1;
  const lower = word.toLowerCase();
  for (const s of SUFFIXES) {
    if (lower.length > s.length + 1 && lower.endsWith(s)) {
      // In lower case after a word that leads an address ("ik woon op de kastanjelaan 7"), or with
      // its postcode or town after the number ("mijn adres is kastanjelaan 7, 8011 AB Zwolle",
      // "hauptstraße 5, 10115 berlin", "naar merelstraat 8 in zwolle"): the address is anchored on
      // them, whatever words come before it.
      if (capitalised || LOWER_CASE_LEAD.test(text.slice(Math.max(0, i - 12), i)) || townAfterNumber(text, at + 1)) return i;
      return -1;
    }
  }
  // The street word on its own after an adjective or a name: "Lange Str. 3", "Berliner Allee 12".
  if (capitalised && SUFFIXES.includes(lower) && text.charCodeAt(i - 1) === 32) {
    let j = i - 1;
    while (j > 0 && i - j < STREET_WORD_MAX && isLetter(text.charCodeAt(j - 1))) j--;
    const c = text.charCodeAt(j);
    if (j < i - 2 && (j === 0 || !isLetter(text.charCodeAt(j - 1))) && ((c >= 65 && c <= 90) || (c > 127 && text[j] !== text[j]!.toLowerCase()))) return j;
  }
  return -1;
}

/** Whether a postcode and its town follow the house number at `p` (and the flat's part). */
function postcodeAfterNumber(text: string, p: number): boolean {
  const number = sticky(HOUSE_Y, text, p);
  if (number < 0) return false;
  return postcodeTownAfter(text, houseTailEnd(text, number)) > 0;
}

/** Whether a postcode and town, or a town, follow the house number at `p`. */
function townAfterNumber(text: string, p: number): boolean {
  const number = sticky(HOUSE_Y, text, p);
  if (number < 0) return false;
  const end = houseTailEnd(text, number);
  return townAfter(text, end) > end;
}

const NUMBER_WORD_BEFORE = /(?:,[ \u00a0]?|[ \u00a0]+(?:op|auf|am)[ \u00a0]+)(?:huisnummer|hausnummer|nummer|nr\.?|no\.?)[ \u00a0]$/iu;
const NUMBER_WORD_WINDOW = 20;

const LOWER_CASE_LEAD = /(?:^|[^\p{L}])(?:op|aan|in|de|het|an|auf|am|im|in der|at|on)[ \u00a0]+$/iu;

// German and Dutch streets named without a street word: "Am Rosenhang 4a", "Auf der Heide 12",
// "Op de Kamp 3". The number has at most three digits ("Im Jahr 2020" is not one).
const PREPOSITION_STREET_BEFORE =
  /(?:^|[^\p{L}])((?:Am|Im|An der|An den|Auf der|Auf dem|In der|In den|Zum|Zur|Unter den|Hinter der|Hinter dem|Op de|Op het|Aan de|Aan het|In de|In het)[ \u00a0]\p{Lu}\p{Ll}{2,30})[ \u00a0]$/u;
const NOT_A_STREET = new Set(['Jahr', 'Jahre', 'Beispiel', 'Ende', 'Anfang', 'Moment', 'Tag', 'Abend', 'Morgen', 'Wochenende', 'Schluss', 'Termin', 'Raum', 'Zimmer', 'Gebäude', 'Kapitel', 'Artikel', 'Jaar', 'Week', 'Hoofdstuk', 'Kamer', 'Bus', 'Zug', 'Gleis', 'Punkt', 'Preis', 'Monat', 'Quartal', 'Mittel', 'Schnitt', 'Grunde']);

/** Start of a street without a street word right before `at` (the space before the number), or -1. */
function prepositionStreetBefore(text: string, at: number): number {
  // The word before the number must be capitalised ("Rosenhang 4a"): most numbers follow a lower-case one.
  let w = at;
  while (w > 0 && isLetter(text.charCodeAt(w - 1))) w--;
  const c = text.charCodeAt(w);
  if (w === at || !((c >= 65 && c <= 90) || (c > 127 && text[w] !== text[w]!.toLowerCase()))) return -1;
  const window = text.slice(Math.max(0, at - 44), at + 1);
  const m = PREPOSITION_STREET_BEFORE.exec(window);
  if (!m) return -1;
  const name = m[1]!;
  const word = name.slice(Math.max(name.lastIndexOf(' '), name.lastIndexOf('\u00a0')) + 1);
  if (NOT_A_STREET.has(word) || isNonNameWord(word)) return -1; // "Im Jahr 2020", "Am Montag 5"
  return at + 1 - window.length + m.index + m[0].length - name.length - 1;
}

// Dutch streets named without a street word, after a word of dwelling: "Ik woon op de Laan van
// Meerdervoort 455", "Ik woon aan het Spui 14", and the whole of "verhuisd naar de Burgemeester de
// Monchyplein 7" (its last word alone was read, leaving "Burgemeester de" in clear). After "woon
// op/aan", "wonen aan", "verhuisd naar" or "adres:" a run of capitalised words, with the particles
// of Dutch street names between them, and a house number are a home address; without such a word
// capitalised words and a number are as often a product, a room or a book's chapter.
const DWELLING_STREET_PARTICLES = new Set(['van', 'de', 'der', 'den', 'het', "'t", '’t', 'ter', 'ten', 'te', 'op', 'aan', 'in']);
const DWELLING_STREET_WORDS = 6;
const DWELLING_WORD_MAX = 31;
// The cue right before the street's first capitalised word, its article with it ("op de ", "aan het ").
const DWELLING_BEFORE =
  /(?:^|[^\p{L}])(?:(?:woon|woont|wonen|woonde|woonden|gewoond|woonachtig)[ \u00a0]+(?:op|aan)|(verhuis[dt]?[ \u00a0]+naar|verhuizen[ \u00a0]+naar)|adres[ \u00a0]*:)[ \u00a0]+(?:(?:de|het|'t|’t)[ \u00a0]+)?$/iu;
const DWELLING_WINDOW = 40;
// The words of DWELLING_BEFORE, any case: a text without one holds no such street.
const DWELLING_WORD = /woon|wonen|verhui|adres/i;

/**
 * Start of a street of capitalised words and particles right before `at` (the space before the
 * number) that a word of dwelling leads (DWELLING_BEFORE), or -1. At most DWELLING_STREET_WORDS
 * words back, read with character tests; the cue regex runs only on a capitalised run.
 */
function dwellingStreetBefore(text: string, at: number): number {
  let i = at;
  let first = -1; // the leftmost capitalised word of the run so far
  let particle = false; // a particle read since the last capitalised word
  let joined = false; // a particle between two capitalised words: "Laan van Meerdervoort"
  for (let k = 0; k < DWELLING_STREET_WORDS; k++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 0xa0) break;
    let s = i;
    while (s > 0 && i - s <= DWELLING_WORD_MAX && (isLetter(text.charCodeAt(s - 1)) || isWordJoiner(text.charCodeAt(s - 1)))) s--;
    if (s === i || i - s > DWELLING_WORD_MAX || (s > 0 && !isBlankCode(text.charCodeAt(s - 1)))) break;
    // Most numbers follow a lower-case word: told by its first letter, before any slice.
    if (k === 0 && !isCapitalised(text.charAt(s))) break;
    const word = text.slice(s, i);
    if (isCapitalised(word)) {
      first = s;
      joined ||= particle;
      particle = false;
    } else if (k === 0 || !DWELLING_STREET_PARTICLES.has(word.toLowerCase())) break;
    else particle = true;
    i = s - 1;
  }
  if (first < 0) return -1;
  const cue = DWELLING_BEFORE.exec(text.slice(Math.max(0, first - DWELLING_WINDOW), first));
  if (cue === null) return -1;
  // A word that is no name among them ("Kamer", "Blok"): checked only now, the cue found, as German
  // capitalises every noun before its number.
  if (text.slice(first, at).split(/[ \u00a0]/).some((w) => isCapitalised(w) && isNonNameWord(w))) return -1;
  // Projects and accounts move too ("De repo is verhuisd naar GitLab 16"): after "verhuisd naar"
  // the street needs a particle between its words, its street word or its town as well.
  if (cue[1] !== undefined && !joined && streetWordBefore(text, at) < 0 && !townAfterNumber(text, at + 1)) return -1;
  return first;
}

// The postcode and town after a street, in any case ("hauptstraße 5, 10115 berlin", "dorpsstraat 4,
// 1234 ab utrecht"): address.ts reads a postcode and town only after a capitalised street and before
// a capitalised town, so in chat the street was masked and "10115 berlin" left.
const TOWN = "((?:(?:[Dd]en|[Bb]ad|[Ss]ankt|[Ss]aint|[Ss]int)[ \u00a0])?\\p{L}[\\p{L}'’]{1,30}(?:-\\p{L}[\\p{L}'’]{0,30}){0,3})(?![\\p{L}\\p{N}])";
// The town after a labelled postcode whose label names it (LABEL_BEFORE).
const LABELLED_TOWN_Y = new RegExp(`[ \u00a0]+${TOWN}`, 'uy');
// What joins them: a comma or blanks, and as one-line addresses write it (QA 2026-11-27: "wohnt
// Hauptstraße 5 in 10115 Berlin", "Parkallee 9 · 20144 Hamburg", "Kastanjelaan 31 | 3722 GB
// Bilthoven" left the postcode and town in clear beside the masked street) a dot, a bar, a dash or a
// slash, or "in", "te", "à". After those (group 1: the sign or word) the town must be capitalised:
// "Dorpsstraat 12 in 2019 gekocht" is a year.
const POSTCODE_LINK = `(?:([ \u00a0]*[·•|/–—-][ \u00a0]*|[ \u00a0]+(?:in|te|à)[ \u00a0]+)|,?[ \u00a0]*)`;
const YEAR_LIKE = /^[ \u00a0]*(?:19|20)\d\d(?!\d)/;
const NL_POSTCODE_TOWN_Y = new RegExp(`${POSTCODE_LINK}[1-9]\\d{3}[ \u00a0]?[A-Za-z]{2}[ \u00a0]+${TOWN}`, 'uy');
// (and the Polish "31-019 Kraków", the Portuguese "1100-053 Lisboa")
const DIGIT_POSTCODE_TOWN_Y = new RegExp(`${POSTCODE_LINK}(?:(?:[A-Z]-)?\\d{4,5}|\\d{2}-\\d{3}|\\d{4}-\\d{3})[ \u00a0]+${TOWN}`, 'uy');
// The town of a home address without a postcode ("Dorpsstraat 12 in Hoogeveen", "14 Mill Lane,
// Thornbury", "3 rue des lilas à Villeurbanne", "Kerkstraat 12 te Zwolle"): with the street it
// points to one household, and it was left beside the masked street (decision 0021). A town named
// on its own ("I flew to Paris") is not read: only right after a street and its number.
const TOWN_LINKED_Y = new RegExp(
  `(,[ \u00a0]{0,2}|[ \u00a0](?:in|te|à|a|em)[ \u00a0])${TOWN}(?:[ \u00a0](?:am|an der|aan den|aan de|aan|op|upon|sur)[ \u00a0]\\p{Lu}[\\p{L}'’-]{1,30}(?![\\p{L}\\p{N}]))?`,
  'uy',
);
// What may follow a town whose link or case says less: the end of the text, the line or the sentence.
const TOWN_END = /^(?:$|[.,;:!?)\n])/;
const WORD_Y = /\p{L}{1,20}(?![\p{L}\p{N}])/uy;

/** Whether `word` could be the first word of a town here: no function word, unit or other word that follows an address. */
function townWord(word: string): boolean {
  return !isNonNameWord(word) && !isFunctionWord(word) && !NOT_A_TOWN.has(word.toLowerCase());
}

// A Dutch postcode names a street's side, the house number one door of it: together they are an
// address as surely as a street and number are (QA 2026-11-27: the answer "1234AB 12a" to "Wat is uw
// postcode en huisnummer?" was sent in clear). The shape alone is the evidence, so the letters are
// not a unit or an abbreviation that follows a number as often ("2048 GB 4", "1200 MW 2", "2024 RC
// 1"), and the number ends the line, the sentence or the clause ("1234 AB 12 stuks" is a count).
const NL_POSTCODE_HOUSE_Y = /[1-9]\d{3}[ \u00a0]?([A-Z]{2})[ \u00a0]{1,2}\d{1,3}(?:[ \u00a0]?[a-zA-Z](?![\p{L}\p{N}])|-\d{1,3}|-(?:III|II|IV|I|hs|HS|bg)|[ \u00a0](?:hs|huis|boven|bg|III|II|IV))?(?=[ \u00a0]*(?:$|[\n.,;:!?)]))/uy;
const NOT_POSTCODE_LETTERS = new Set(
  'SA SD SS GB MB KB TB PB MW KW GW HP PS KM CM MM ML CL DL KG MG EU US UK AD BC CE AM PM RC SP TI GT XL XS VS NO ID PC TV OS CV BV NV BW SR SV WW'.split(' '),
);

/** The end of a Dutch postcode and a house number from `p` (NL_POSTCODE_HOUSE_Y), or -1. */
function postcodeHouseEnd(text: string, p: number): number {
  NL_POSTCODE_HOUSE_Y.lastIndex = p;
  const m = NL_POSTCODE_HOUSE_Y.exec(text);
  return m === null || NOT_POSTCODE_LETTERS.has(m[1]!) ? -1 : NL_POSTCODE_HOUSE_Y.lastIndex;
}

function runLengthAt(text: string, p: number): number {
  let n = 0;
  while (n < 6 && isDigitCode(text.charCodeAt(p + n))) n++;
  return n;
}

/** The word of a town that says whether it is one: "Haag" of "Den Haag", "Honnef" of "Bad Honnef". */
function firstTownWord(town: string): string {
  const words = town.split(/[ \u00a0-]/);
  return words.length > 1 && /^(?:den|bad|sankt|saint|sint)$/i.test(words[0]!) ? words[1]! : words[0]!;
}

/** The end of a postcode and its town right after a street that ends at `end`, or -1. */
function postcodeTownAfter(text: string, end: number): number {
  for (const re of [NL_POSTCODE_TOWN_Y, DIGIT_POSTCODE_TOWN_Y]) {
    re.lastIndex = end;
    const m = re.exec(text);
    if (m === null) continue;
    const first = firstTownWord(m[2]!);
    // ", 2024 was een goed jaar", "10 Uhr": a word that is no place.
    if (isNonNameWord(first) || NOT_A_TOWN.has(first.toLowerCase())) continue;
    const link = m[1];
    if (link !== undefined) {
      if (first[0] === first[0]!.toLowerCase()) continue;
      // A bar that opens its line is a Markdown table's: the street and the town are cells of their own.
      if (link.includes('|') && text.charCodeAt(lineStartOf(text, end)) === 124) continue;
      // The town ends its sentence or line, or the sentence goes on with a function word.
      if (!sentenceGoesOn(text, re.lastIndex)) continue;
      // "Parkallee 9 - 2024 Review", "Hauptstraße 5 in 2019 Renoviert": after a dash, a slash or a
      // word, four digits that can be a year are one (a Belgian or Austrian postcode there is missed).
      if (re === DIGIT_POSTCODE_TOWN_Y && !/[·•|]/.test(link) && YEAR_LIKE.test(m[0].slice(link.length))) continue;
    }
    return re.lastIndex;
  }
  return -1;
}

/** The end of a postcode and its town, or of a town alone, right after a street that ends at `end`; else `end`. */
function townAfter(text: string, end: number): number {
  const withPostcode = postcodeTownAfter(text, end);
  if (withPostcode > 0) return withPostcode;
  TOWN_LINKED_Y.lastIndex = end;
  const m = TOWN_LINKED_Y.exec(text);
  if (m === null) return end;
  const town = m[2]!;
  const words = town.split(/[ \u00a0-]/);
  const first = words.length > 1 && /^(?:den|bad|sankt|saint|sint)$/i.test(words[0]!) ? words[1]! : words[0]!;
  if (!townWord(first)) return end;
  const capitalised = town[0] !== town[0]!.toLowerCase();
  // After a comma a capitalised word is as often the next sentence's or a part of the house
  // ("Kantstr. 112, Hinterhaus"), and a lower-case one nearly always is ("…, bel maar aan"): a town
  // there is capitalised and ends the sentence or the line; in lower case, after "in" or "à", it does too.
  const comma = m[1]!.startsWith(',');
  if (comma && !capitalised) return end;
  // Italian "a" ("via Garibaldi 22 a Torino", QA 2026-11-27: the town was left) is a letter of
  // other languages too: after it only a capitalised town that ends its sentence or line.
  if (m[1]!.trim() === 'a' && !(capitalised && sentenceGoesOn(text, TOWN_LINKED_Y.lastIndex))) return end;
  const after = TOWN_LINKED_Y.lastIndex;
  if ((comma || !capitalised) && !TOWN_END.test(text.slice(after, after + 1))) {
    if (comma || !sentenceGoesOn(text, after)) return end;
  }
  return after;
}

/**
 * Whether a town that ends at `after` ends the text, its line or its sentence, or the sentence goes
 * on after it with a function word ("à villeurbanne depuis 2019", "in zwolle sinds maart").
 */
function sentenceGoesOn(text: string, after: number): boolean {
  if (TOWN_END.test(text.slice(after, after + 1))) return true;
  if (text.charCodeAt(after) !== 32) return false;
  WORD_Y.lastIndex = after + 1;
  const next = WORD_Y.exec(text);
  return next !== null && (isFunctionWord(next[0]) || isNonNameWord(next[0]));
}
const NOT_A_TOWN = new Set([
  'uhr', 'uur', 'euro', 'eur', 'km', 'stück', 'stuks', 'jahre', 'jaar', 'years', 'mal', 'keer', 'fois', 'minuten', 'minutes', 'stunden', 'hours', 'items', 'personen', 'people', 'mensen',
  // After "in", "à" or a comma, what is no town: "in totaal", "à pied", "in Ordnung", ", Hinterhaus".
  'totaal', 'orde', 'principe', 'gebruik', 'overleg', 'person', 'time', 'advance', 'total', 'general', 'progress', 'case', 'stock', 'use', 'pied', 'côté', 'droite', 'gauche', 'midi',
  'minuit', 'bientôt', 'vélo', 'nouveau', 'ordnung', 'kürze', 'zukunft', 'betrieb', 'arbeit', 'planung', 'bearbeitung', 'hinterhaus', 'vorderhaus', 'seitenflügel', 'gartenhaus',
  'hof', 'hinterhof', 'erdgeschoss', 'dachgeschoss', 'obergeschoss', 'souterrain', 'hochparterre', 'parterre', 'eingang', 'klingel', 'etage', 'stock', 'flat', 'apartment', 'unit', 'appartement', 'bâtiment', 'escalier',
]);

/** The first character that is not a blank on the line holding `at`, read back at most LINE_BACK characters. */
function lineStartOf(text: string, at: number): number {
  let i = at;
  const stop = Math.max(0, at - LINE_BACK);
  while (i > stop && text.charCodeAt(i - 1) !== 10) i--;
  while (i < at && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i++;
  return i;
}
const LINE_BACK = 200;

function sticky(re: RegExp, text: string, at: number): number {
  re.lastIndex = at;
  return re.test(text) ? re.lastIndex : -1;
}

// A place named for a meeting or a shop is no one's home ("Rendez-vous au 12 rue de Rivoli pour la
// réunion"): a street with such a word in the MEETING_WINDOW characters before it is left alone.
const MEETING = /rendez-vous|\brdv\b|réunion|meeting|vergadering|afspraak|treffpunkt|besprechung|restaurant|museum|musée|magasin|boutique|winkel|geschäft|\bshop\b|\bstore\b/iu;
const MEETING_WINDOW = 40;

// ... unless the meeting is at someone's home: "rdv chez moi, 8 impasse des Lilas à Annecy".
const AT_HOME = /chez (?:moi|nous|lui|elle)|à la maison|bij (?:mij|ons)|thuis|bei (?:mir|uns)|zu ?hause|at (?:my|our) (?:place|house|home)/iu;

function push(out: Detection[], text: string, start: number, end: number): void {
  const before = text.slice(Math.max(0, start - MEETING_WINDOW), start);
  if (MEETING.test(before) && !AT_HOME.test(before)) return;
  out.push({ type: 'ADDRESS', start, end, text: text.slice(start, end), checksum: false });
}

export function findStreets(text: string, scan?: TextScan): Detection[] {
  const s = scanOf(text, scan);
  const out: Detection[] = [];
  if (s.digitRuns.length === 0) return out;
  let after = 0;
  let cue = 0; // the pre-scan's next street type word that may lie before a number
  let southCue = 0; // the same for the Spanish, Italian and Polish types
  let dwellingWords: boolean | undefined; // whether the text holds a word that DWELLING_BEFORE needs
  for (let k = 0; k < s.digitRuns.length; k++) {
    const p = s.digitRuns[k]!;
    if (p < after) continue;
    const before = p > 0 ? text.charCodeAt(p - 1) : 32;
    if (isLetter(before)) continue;
    // Labelled postcode.
    if (before === 32 || before === 0xa0 || before === 58) {
      const window = text.slice(Math.max(0, p - LABEL_WINDOW), p);
      if (LABEL_BEFORE.test(window)) {
        const labelStart = p - LABEL_WINDOW < 0 ? 0 : p - LABEL_WINDOW;
        const m = LABEL_BEFORE.exec(window)!;
        const wordBefore = labelStart + m.index - 1;
        if (wordBefore < 0 || !isLetter(text.charCodeAt(wordBefore))) {
          const end = sticky(LABELLED_Y, text, p);
          // A postcode named in passing ("Die Postleitzahl 80331 gehört zu München") is no one's
          // address: only one given as an address is, with its colon or a house number after it.
          const house = end > 0 ? HOUSE_NUMBER_AFTER.exec(text.slice(end, end + 24)) : null;
          if (end > 0 && (/[:]/.test(window.slice(m.index)) || house)) {
            // "postcode 2512 AB huisnummer 9": the house number belongs to the address.
            let last = house ? Math.max(end, sticky(HOUSE_Y, text, end + house[0].length - 1)) : end;
            if (m[1] !== undefined && !house) {
              LABELLED_TOWN_Y.lastIndex = end;
              const town = LABELLED_TOWN_Y.exec(text);
              if (town !== null && townWord(firstTownWord(town[1]!))) last = LABELLED_TOWN_Y.lastIndex;
            }
            push(out, text, p, last);
            after = last;
            continue;
          }
        }
      }
    }
    // Street word, then number: "Kastanjelaan 31", "Goethestr. 18".
    if (before === 32 || before === 0xa0) {
      let start = streetWordBefore(text, p - 1);
      // "in de Kerkstraat, nummer 12", "de Kerkstraat op nummer 12": the number's word between.
      if (start < 0 && digitsAt(text, p) <= 4) {
        const word = NUMBER_WORD_BEFORE.exec(text.slice(Math.max(0, p - NUMBER_WORD_WINDOW), p));
        if (word !== null) start = streetWordBefore(text, p - word[0].length);
      }
      if (start < 0 && digitsAt(text, p) <= 3) start = prepositionStreetBefore(text, p - 1);
      // After a word of dwelling the street may be longer than its street word says: "Burgemeester de
      // Monchyplein 7". Most texts hold no such word: one test a text spares the walk at every number.
      dwellingWords ??= DWELLING_WORD.test(text);
      if (dwellingWords && digitsAt(text, p) <= 4) {
        const dwelling = dwellingStreetBefore(text, p - 1);
        if (dwelling >= 0 && (start < 0 || dwelling < start)) start = dwelling;
      }
      if (start < 0 && digitsAt(text, p) <= 3) {
        while (cue < s.cueAt.length && (s.cueAt[cue]! < p - FR_BACK || (s.cueBits[cue]! & FR_TYPE_BIT) === 0)) cue++;
        if (cue < s.cueAt.length && s.cueAt[cue]! < p) start = frenchTypeFirstBefore(text, p - 1);
      }
      if (start < 0 && digitsAt(text, p) <= 3) {
        while (southCue < s.cueAt.length && (s.cueAt[southCue]! < p - SOUTH_BACK || (s.cueBits[southCue]! & SOUTH_TYPE_BIT) === 0)) southCue++;
        if (southCue < s.cueAt.length && s.cueAt[southCue]! < p) start = southTypeFirstBefore(text, p - 1);
      }
      if (start >= 0) {
        const number = sticky(HOUSE_Y, text, p);
        if (number > 0 && !NOT_A_HOUSE.test(text.slice(number, number + 12))) {
          // "bus 3", "/3/12", ", 3. OG", "-II": the flat's part of the address.
          const end = houseTailEnd(text, number);
          let last = end;
          // ", 10627Berlin": a glued postcode and town right after.
          const comma = text.charCodeAt(last) === 44 ? last + 1 : last;
          let q = comma;
          while (text.charCodeAt(q) === 32) q++;
          if (q > last && q - last <= 3) {
            const g = sticky(GLUED_Y, text, q);
            if (g > 0) last = g;
          }
          last = townAfter(text, last);
          push(out, text, start, last);
          after = last;
          continue;
        }
      }
    }
    // Number, then a French or English street.
    const num = sticky(HOUSE_Y, text, p);
    if (num > 0 && isLetter(text.charCodeAt(text.charCodeAt(num) === 44 ? num + 2 : num + 1))) {
      let end = Math.max(sticky(FR_STREET_Y, text, num), sticky(EN_STREET_Y, text, num), frenchStreetAfter(text, num, p));
      // An English street in any case with its town and postcode after it: "14 elm grove road,
      // bristol BS6 7HT". In lower case the postcode is what says it is an address.
      // A UK postcode holds a digit: without one close after, no regex call (most numbers in chat).
      const postcodeNear = k + 1 < s.digitRuns.length && s.digitRuns[k + 1]! - num <= UK_TAIL_MAX;
      const english = postcodeNear ? sticky(EN_STREET_ANY_CASE_Y, text, num) : -1;
      const ukEnd = english > 0 ? sticky(UK_TOWN_POSTCODE_Y, text, english) : -1;
      if (ukEnd > 0) {
        push(out, text, p, ukEnd);
        after = ukEnd;
        continue;
      }
      // After a word of dwelling or a flat's number, an English street in any case.
      const dwelling = englishDwellingStart(text, p);
      if (dwelling >= 0) {
        const chat = Math.max(end, english > 0 ? english : sticky(EN_STREET_ANY_CASE_Y, text, num));
        if (chat > 0) {
          end = englishTownAfter(text, chat);
          push(out, text, dwelling, end);
          after = end;
          continue;
        }
      }
      if (end > 0) {
        end = townAfter(text, end);
        push(out, text, p, end);
        after = end;
        continue;
      }
    }
    // A Dutch postcode and a house number: "1234AB 12a", "3722 GB 31".
    if (!isDigitCode(before) && runLengthAt(text, p) === 4) {
      const house = postcodeHouseEnd(text, p);
      if (house > 0) {
        push(out, text, p, house);
        after = house;
        continue;
      }
    }
    // A postcode glued to its town on its own: "10627Berlin".
    const glued = isDigitCode(text.charCodeAt(p + 3)) ? sticky(GLUED_Y, text, p) : -1;
    if (glued > 0 && (p === 0 || !isDigitCode(before))) {
      push(out, text, p, glued);
      after = glued;
    }
  }
  return out;
}

export const streetRecognizer: Recognizer = {
  type: 'ADDRESS',
  needsDigit: true,
  detect(text: string, _language: Language, scan?: TextScan): Detection[] {
    return findStreets(text, scan);
  },
};

