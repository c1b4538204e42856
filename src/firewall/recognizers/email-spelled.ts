// E-mail addresses written out so that scrapers miss them: "jan.smit at gmail dot com",
// "anna (at) web (punkt) de", "m.jonker apenstaartje ziggo punt nl", "c.roy arobase free point fr".
// Reported only when the address they spell is a valid one with a known top-level domain, so that
// "look at the results dot plot" stays as it is. Each "at" word is read from: the local part
// backwards (at most LOCAL_MAX characters), the domain forwards label by label (at most
// MAX_LABELS), each step a bounded sticky regex: linear in the text.
import type { Detection, Language, Recognizer } from '../types.js';

// The "at" words as they stand in a text: a spoken one with a space on either side, a bracketed one
// as it is. Found in one pass over the character codes (a regex over every space of the text cost
// far more: " at " is everywhere in English), then confirmed with startsWith.
const SPOKEN = ['at', 'ät', 'apenstaartje', 'arobase', 'arrobase', 'klammeraffe'];
const BRACKETED = ['(at)', '[at]', '{at}', '(ät)'];

/** Where each "at" word occurs, as [index, length] pairs in text order (a spoken one without its spaces, from its leading space). */
function atWords(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  const n = text.length - 2;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 40 && c !== 91 && c !== 123) continue;
    const d = text.charCodeAt(i + 1) | 0x20;
    if (d !== 97 && d !== 0xe4 && d !== 107) continue; // a, ä, k
    if (c === 32) {
      for (const w of SPOKEN) {
        const end = i + 1 + w.length;
        if (text.charCodeAt(end) === 32 && text.slice(i + 1, end).toLowerCase() === w) out.push([i, w.length + 1]);
      }
    } else {
      for (const w of BRACKETED) if (text.slice(i, i + w.length).toLowerCase() === w) out.push([i, w.length]);
    }
  }
  return out;
}

const DOT_Y = /(?:[ ]*[([{][ ]?(?:dot|punt|punkt|point)[ ]?[)\]}][ ]*|[ ]+(?:dot|punt|punkt|point)[ ]+|\.)/iuy;
const LABEL_Y = /[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?(?![\p{L}\p{N}@])/iuy;
const LOCAL_MAX = 64;
const MAX_LABELS = 5;
const TLDS = new Set(
  'com net org info biz eu nl be de fr lu ch at uk co ie es it pt dk se no fi pl cz io me email online'.split(' '),
);

// A local part may be written out too: "priya dot raghunathan at …". Read backwards, one label at a
// time, each step bounded by LOCAL_MAX in all.
const SPOKEN_DOT = '(?:[ ]+(?:dot|punt|punkt|point)[ ]+|[ ]*[([{][ ]?(?:dot|punt|punkt|point)[ ]?[)\\]}][ ]*)';
const SPOKEN_DOT_BEFORE = new RegExp(`${SPOKEN_DOT}$`, 'iu');
const SPOKEN_DOTS = new RegExp(SPOKEN_DOT, 'giu');

function spokenDotsBefore(text: string, start: number, end: number): number {
  for (let steps = 0; steps < 4; steps++) {
    const window = text.slice(Math.max(0, start - 12), start);
    const dot = SPOKEN_DOT_BEFORE.exec(window);
    if (!dot) break;
    const labelEnd = start - dot[0].length;
    let labelStart = labelEnd;
    while (labelStart > 0 && end - labelStart < LOCAL_MAX && isLocalChar(text.charCodeAt(labelStart - 1))) labelStart--;
    if (labelStart === labelEnd || (labelStart > 0 && /[\p{L}\p{N}@]/u.test(text[labelStart - 1]!))) break;
    start = labelStart;
  }
  return start;
}

// A surname's particle said as a word of its own inside a spoken local part: "jan dot de vries at
// gmail dot com" is jan.devries@gmail.com (the address was read from "vries", and "jan dot de" was
// sent in clear). Only after a spoken dot: "mail de vries at …" has no local part of two words.
const PARTICLE_BEFORE = new RegExp(`${SPOKEN_DOT}((?:van|von|de|der|den|te|ter|ten|le|la|du|da|di|del|dos)(?: (?:de|der|den|la))?) $`, 'iu');

function particleBefore(text: string, start: number): number {
  const particle = PARTICLE_BEFORE.exec(text.slice(Math.max(0, start - 24), start));
  return particle ? start - particle[1]!.length - 1 : start;
}

function isLocalChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 46 || c === 95 || c === 45 || c === 43 || c === 37;
}

// Mail providers whose domain names nothing but mailboxes: "jan at gmail.com" is an address
// however its dots are written ("She works at Google.com" is not).
const MAIL_PROVIDERS = new Set(
  `gmail googlemail outlook hotmail live msn yahoo ymail icloud me mac aol proton protonmail pm gmx web t-online freenet posteo
  mailbox ziggo kpnmail kpnplanet planet hetnet home chello telenet skynet orange wanadoo free laposte sfr libero virgilio tiscali`.split(/\s+/),
);

/**
 * Whether the words around a bare "at" with a real-dotted domain still make an address: a local
 * part written as one (a dot, underscore, hyphen or digit in it: "jan.jansen at example.com"), or
 * a mail provider's domain.
 */
function mailboxLike(local: string, labels: readonly string[]): boolean {
  return /[._\-+0-9]/.test(local) || MAIL_PROVIDERS.has(labels[labels.length - 2]!.toLowerCase());
}

export function findSpelledEmails(text: string): Detection[] {
  const out: Detection[] = [];
  let done = 0;
  for (const [index, length] of atWords(text)) {
    if (index < done) continue;
    const m = { index, 0: text.slice(index, index + length) };
    const bracketed = m[0].charCodeAt(0) !== 32;
    // A bare English "at" before a domain written with real dots is a place, not an address: "bought
    // it at Amazon.com", "log in at app.example.org", unless the words are a mailbox's (mailboxLike).
    const bareAt = !bracketed && length === 3 && (text.charCodeAt(index + 1) | 0x20) === 97;
    // The local part, right before: the spoken "at" brings its space before it; a bracketed one
    // may follow the local part directly.
    let end = m.index;
    if (bracketed && text.charCodeAt(end - 1) === 32) end--;
    let start = end;
    while (start > 0 && end - start < LOCAL_MAX && isLocalChar(text.charCodeAt(start - 1))) start--;
    if (start === end || (start > 0 && /[\p{L}\p{N}@]/u.test(text[start - 1]!))) continue;
    start = spokenDotsBefore(text, particleBefore(text, start), end);
    const local = text.slice(start, end).replace(SPOKEN_DOTS, '.').replace(/ /g, '');
    if (local.startsWith('.') || local.endsWith('.')) continue;
    // The domain, label by label.
    let i = m.index + m[0].length;
    if (text.charCodeAt(i) === 32) i++;
    const labels: string[] = [];
    let last = -1;
    let spokenDot = false;
    let spokenBefore = false;
    while (labels.length < MAX_LABELS) {
      LABEL_Y.lastIndex = i;
      const l = LABEL_Y.exec(text);
      if (!l) break;
      labels.push(l[0]);
      if (spokenBefore) spokenDot = true;
      last = LABEL_Y.lastIndex;
      DOT_Y.lastIndex = last;
      if (!DOT_Y.test(text)) break;
      spokenBefore = DOT_Y.lastIndex - last !== 1 || text.charCodeAt(last) !== 46;
      i = DOT_Y.lastIndex;
    }
    if (labels.length < 2) continue;
    if (bareAt && !spokenDot && !mailboxLike(local, labels)) continue;
    const tld = labels[labels.length - 1]!.toLowerCase();
    if (!TLDS.has(tld) || !/^[a-z]+$/.test(tld)) continue;
    const address = `${local}@${labels.join('.')}`.toLowerCase();
    out.push({ type: 'EMAIL', start, end: last, text: text.slice(start, last), checksum: false, normalized: address });
    done = last;
  }
  return out;
}

export const spelledEmailRecognizer: Recognizer = {
  type: 'EMAIL',
  needsDigit: false,
  detect(text: string, _language: Language): Detection[] {
    return findSpelledEmails(text);
  },
};
