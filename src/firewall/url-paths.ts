// Names in URL paths: "https://www.linkedin.com/in/sanne-vermeulen-4a21b3/",
// "https://intranet.acme.nl/medewerkers/jeroen-brouwer", "[profile](https://example.com/u/anna.kowalski)"
// beside a masked "Anna Kowalski" went out in clear (QA 2026-11-27): a slug is one token to the
// recognizers, which read names as words. A path segment is masked as a person when
//  - it is the profile of a site whose profile paths are a person's handle (PROFILE_SITES:
//    linkedin.com/in/…, xing.com/profile/…, facebook.com/…, instagram.com/…, x.com/…,
//    twitter.com/…, tiktok.com/@…) — any handle there names its holder;
//  - it spells a first name and a surname the lists know, with particles between and a profile's
//    numeric suffix after ("jeroen-brouwer", "anna.kowalski", "jan-van-der-berg", "sanne-vermeulen-4a21b3");
//  - or it spells, in slug form, a name of several words found elsewhere in the text ("Aoife
//    MacGiolla" … "/in/aoifemacgiolla", "Anna Kowalski" … "/u/anna.kowalski").
// github.com and gitlab.com get no rule of their own: their first segment is as often an
// organisation ("github.com/nodejs/node"), and a model needs the repository to help with it; a
// person's slug there is masked by the rules above. A product or article slug with more words
// than a name ("/products/jan-linders-kaas", "/blog/2024/03/release-notes") stays.
//
// The placeholder is written percent-encoded (`%5BPERSON_1%5D`), as url-encoded.ts writes one, so
// that the URL stays a URL; the vault keeps the segment as written and restores it byte for byte.
// Each "/" is looked at once and each token read once: linear in the text; a text without "/"
// costs one indexOf.
import { isKnownFirstNameLower, isKnownLastNameLower } from './gazetteer/index.js';
import { nameIsAlsoAWord } from './recognizers/person.js';
import type { Detection, Recognizer } from './types.js';
import { isNonNameWord } from './words.js';

const SLASH = 47;
/** A host name is at most 253 characters. */
const MAX_HOST = 253;
/** Longer URLs are not read: the cost of a token stays bounded, and real ones are shorter. */
const MAX_URL = 4096;
/** A slug longer than this is no person's handle or name. */
const MAX_SEGMENT = 100;

interface ProfileSite {
  /** The path segment before the handle ("in" for linkedin.com/in/…), or null: the first segment is it. */
  under: ReadonlySet<string> | null;
  /** First segments that are the site's own pages, not a handle. */
  reserved?: ReadonlySet<string>;
  /** Handles written "@handle" in the path (tiktok.com/@…): only those. */
  at?: boolean;
}

const words = (list: string): ReadonlySet<string> => new Set(list.split(/\s+/).filter(Boolean));

const FACEBOOK_PAGES = words(`pages groups events watch marketplace gaming help share sharer sharer.php login login.php
  profile.php people photo photo.php photos story.php permalink.php policies privacy business ads hashtag settings
  notifications messages friends legal about careers reel reels stories search home.php l.php dialog plugins tr video
  videos media public fundraisers bookmarks saved`);
const INSTAGRAM_PAGES = words('p reel reels explore stories accounts direct tv about developer legal web challenge emails ar');
const X_PAGES = words(`i home search explore intent share hashtag settings messages notifications login logout signup tos
  privacy compose about jobs download en account oauth widgets`);

const PROFILE_SITES = new Map<string, ProfileSite>([
  ['linkedin.com', { under: words('in pub') }],
  ['xing.com', { under: words('profile') }],
  ['facebook.com', { under: null, reserved: FACEBOOK_PAGES }],
  ['fb.com', { under: null, reserved: FACEBOOK_PAGES }],
  ['instagram.com', { under: null, reserved: INSTAGRAM_PAGES }],
  ['x.com', { under: null, reserved: X_PAGES }],
  ['twitter.com', { under: null, reserved: X_PAGES }],
  ['tiktok.com', { under: null, at: true }],
]);

/** The profile site a host belongs to ("nl.linkedin.com", "www.x.com"), or undefined. */
function profileSiteOf(host: string): ProfileSite | undefined {
  let name = host.toLowerCase();
  for (;;) {
    const site = PROFILE_SITES.get(name);
    if (site !== undefined) return site;
    const dot = name.indexOf('.');
    if (dot < 0) return undefined;
    name = name.slice(dot + 1);
  }
}

function isHostCode(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 46 || c === 45;
}

/** Whether [start, end) is a host name: labels with a dot between, the last one of letters ("acme.nl"). */
function isHost(text: string, start: number, end: number): boolean {
  if (end - start < 4 || end - start > MAX_HOST) return false;
  const dot = text.lastIndexOf('.', end - 1);
  if (dot <= start || end - dot - 1 < 2) return false;
  for (let i = dot + 1; i < end; i++) {
    const c = text.charCodeAt(i) | 32;
    if (c < 97 || c > 122) return false;
  }
  const first = text.charCodeAt(start);
  return first !== 46 && first !== 45;
}

/** Characters that end a URL in text: white space, quotes, angle brackets, a table's bar. */
function endsUrl(c: number): boolean {
  return c <= 32 || c === 34 || c === 39 || c === 60 || c === 62 || c === 96 || c === 124 || c === 0xa0 || c === 0x2028 || c === 0x2029;
}

/** Punctuation that ends a sentence or a bracket after a URL rather than belonging to it. */
function trailingPunctuation(c: number): boolean {
  return c === 46 || c === 44 || c === 59 || c === 58 || c === 33 || c === 63 || c === 41 || c === 93 || c === 125;
}

/** Where a path segment ends: "/", a query, a fragment, a bracket. */
function endsSegment(c: number): boolean {
  return c === SLASH || c === 63 || c === 35 || c === 40 || c === 41 || c === 91 || c === 93;
}

// A handle as written in a path; a LinkedIn slug may hold percent-encoded letters ("jos%C3%A9-garc%C3%ADa").
const HANDLE = /^[A-Za-z0-9._%-]{1,100}$/;
// A handle written all in capitals ("x.com/NASA", "x.com/ANNA") is an acronym, an organisation's or
// a path shouted in capitals as often as a person's; a handle needs a lower-case letter.
const LETTER = /[a-z]/;
const SLUG = /^[A-Za-z]+(?:[-._][A-Za-z0-9]+){1,5}$/;
const DIGIT = /[0-9]/;
/** A profile's numeric suffix ("-4a21b3", "-12"): letters and digits with at least one digit. */
const SUFFIX = /^[a-z0-9]{1,16}$/;
const PARTICLES = words('van von vom der den de del della di da dos du le la ten ter zu mac mc');

function isFirstNameWord(word: string): boolean {
  return word.length >= 2 && isKnownFirstNameLower(word) && !nameIsAlsoAWord(word);
}

function isSurnameWord(word: string): boolean {
  return word.length >= 2 && isKnownLastNameLower(word) && !isNonNameWord(word);
}

/** The words of a slug without a numeric suffix, in lower case: "Sanne-Vermeulen-4a21b3" → ["sanne", "vermeulen"]. */
function slugWords(segment: string): string[] | null {
  if (!SLUG.test(segment)) return null;
  const parts = segment.toLowerCase().split(/[-._]/);
  const last = parts[parts.length - 1]!;
  if (DIGIT.test(last)) {
    if (!SUFFIX.test(last)) return null;
    parts.pop();
  }
  return parts.some((p) => DIGIT.test(p)) ? null : parts;
}

/** Whether a slug's words are a first name and a surname the lists know, with particles or a middle name between. */
function spellsKnownName(slug: readonly string[]): boolean {
  if (slug.length < 2 || slug.length > 4) return false;
  if (!isFirstNameWord(slug[0]!) || !isSurnameWord(slug[slug.length - 1]!)) return false;
  for (let i = 1; i < slug.length - 1; i++) if (!PARTICLES.has(slug[i]!) && !isFirstNameWord(slug[i]!)) return false;
  return true;
}

/** A name in slug form: letters only, lower case, accents off ("José García" → "josegarcia"). */
function slugKey(name: string): string {
  return name
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z]/g, '');
}

/** The names of several words among `found`, in slug form (see slugKey). */
function maskedNameKeys(found: readonly Detection[]): Set<string> {
  const keys = new Set<string>();
  for (const d of found) {
    if (d.type !== 'PERSON' || !/[\p{L}][ \u00a0-]+\p{L}/u.test(d.text)) continue;
    const key = slugKey(d.text);
    if (key.length >= 6) keys.add(key);
  }
  return keys;
}

/**
 * Path segments of the text's URLs that name a person (see the top of this file), as PERSON
 * detections whose placeholder is percent-encoded. `found`: what the text's other readings found,
 * for names written elsewhere in the text; none without a PERSON recognizer among `recognizers`.
 */
export function urlPathNames(text: string, found: readonly Detection[], recognizers: readonly Recognizer[]): Detection[] {
  let slash = text.indexOf('/');
  if (slash < 0 || !recognizers.some((r) => r.type === 'PERSON')) return [];
  const out: Detection[] = [];
  let nameKeys: Set<string> | null = null;
  const take = (start: number, end: number) => {
    const written = text.slice(start, end);
    // Its own entry in the vault, so that it restores as written even where the same person has
    // another slug or a name in prose; `urlDecoded` makes the placeholder percent-encoded.
    out.push({ type: 'PERSON', start, end, text: written, checksum: false, normalized: `url-path:${written}`, urlDecoded: written });
  };
  let from = 0;
  const n = text.length;
  while (slash >= 0) {
    let hostStart = slash;
    while (hostStart > from && slash - hostStart <= MAX_HOST && isHostCode(text.charCodeAt(hostStart - 1))) hostStart--;
    if (!isHost(text, hostStart, slash)) {
      from = slash + 1;
      slash = text.indexOf('/', from);
      continue;
    }
    let end = slash + 1;
    while (end < n && !endsUrl(text.charCodeAt(end))) end++;
    from = end;
    while (end > slash + 1 && trailingPunctuation(text.charCodeAt(end - 1))) end--;
    if (end - hostStart <= MAX_URL) {
      const site = profileSiteOf(text.slice(hostStart, slash));
      let index = 0;
      let previous = '';
      for (let start = slash + 1; start < end; index++) {
        let stop = start;
        while (stop < end && !endsSegment(text.charCodeAt(stop))) stop++;
        const segment = text.slice(start, stop);
        if (segment.length > 0 && segment.length <= MAX_SEGMENT) {
          const profile = site === undefined ? -1 : profileHandle(site, index, previous, segment);
          if (profile >= 0) take(start + profile, stop);
          else {
            const slug = slugWords(segment);
            if (slug !== null) {
              if (spellsKnownName(slug)) take(start, stop);
              else if ((nameKeys ??= maskedNameKeys(found)).size > 0 && nameKeys.has(slug.join(''))) take(start, stop);
            }
          }
        }
        previous = segment.toLowerCase();
        const c = text.charCodeAt(stop);
        // The path ends at a query or fragment: what follows is no segment.
        if (stop >= end || c === 63 || c === 35) break;
        start = stop + 1;
      }
    }
    slash = text.indexOf('/', from);
  }
  return out;
}

/** Where the handle starts in `segment` (after an "@"), when it is a profile site's handle; else -1. */
function profileHandle(site: ProfileSite, index: number, previous: string, segment: string): number {
  if (site.under !== null) return index === 1 && site.under.has(previous) && HANDLE.test(segment) && LETTER.test(segment) ? 0 : -1;
  if (index !== 0) return -1;
  if (site.at === true) return segment.charCodeAt(0) === 64 && HANDLE.test(segment.slice(1)) && LETTER.test(segment) ? 1 : -1;
  return HANDLE.test(segment) && LETTER.test(segment) && !site.reserved?.has(segment.toLowerCase()) ? 0 : -1;
}
