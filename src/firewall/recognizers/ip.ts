// IP addresses. IPv4: four decimal octets 0–255 without leading zeros; dotted version numbers
// ("v1.2.3.4", "version 10.0.19045.1") are left alone. IPv6: a hex-and-colon token validated by
// node:net's parser (so "14:32:10" and MAC addresses are not addresses). Loopback, 0.0.0.0,
// netmasks and network ranges in CIDR notation ("10.0.0.0/16", "fd00::/8") are left alone: they
// name no one.
import { isIPv6 } from 'node:net';
import { cueNear } from '../context.js';
import { Matcher, runsWithDigits, scanOf, type TextScan } from '../scan.js';
import type { Detection, Language, Recognizer } from '../types.js';

const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = new RegExp(`(?<![\\p{L}\\p{N}._:-])${OCTET}(?:\\.${OCTET}){3}(?:/\\d{1,2})?(?![\\p{L}\\p{N}_-]|\\.\\d)`, 'gu');
const IPV6 = /(?<![\p{L}\p{N}_:.-])[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}(?:(?<=:)\d{1,3}(?:\.\d{1,3}){3})?(?:\/\d{1,3})?(?![\p{L}\p{N}_:-]|\.\d)/gu;
// A component that has versions, right before the number ("kernel 5.15.0.91", "glibc 2.35.0.1",
// "BIOS: 1.20.0.3"): only there, since "kernel panic on 81.204.17.56" names an address.
const VERSIONED_COMPONENT = 'kernel|g?libc|bios|uefi|sdk|jdk|jre|openjdk|gcc|clang|llvm|openssl|python|php|ruby|perl|golang|rustc|npm|pip';
const VERSION_CUE = new RegExp(
  `\\bv(?:er(?:s(?:ion|ie)?)?)?\\.?\\s*$|version|versie|\\bbuild|release|firmware|\\bpatch|hotfix|\\bwindows|\\bandroid|\\bios\\b|\\bmacos|chrome|firefox|node(?:\\.js)?\\s*$|\\btag\\s*$|` +
    `\\b(?:${VERSIONED_COMPONENT})(?:[ \\t]*[:=]|[ \\t]+(?:is|was))?[ \\t]*$`,
  'i',
);
// Before the number, within 40 characters: "upgraded from 1.2.3.3 to", "bumped the agent to", "updating to", "Update auf".
const UPGRADE_TO = /(?:upgrad|downgrad|\bbump)\w*(?:\s+\S+){0,2}\s+(?:to|naar|auf|vers)\s*$|updat\w*\s+(?:to|naar|auf|vers)\s*$/i;
// After the number: "1.2.3.4 release", "the 1.2.3.4 build is out".
const VERSION_AFTER = /^[ \u00a0]*(?:release|build|version|versie|update|upgrade|hotfix|patch|changelog|is out|rc\d?)(?![\p{L}])/iu;
// Between two version numbers: "1.2.3.3 to 1.2.3.4", "1.2.3.3 -> 1.2.3.4", "4.2.1.7 und 4.2.1.8".
const JOINED = /^[ \u00a0]*(?:to|->|→|and|or|naar|en|of|auf|und|oder|à|et|ou|,)[ \u00a0]*$/u;
// Right before it, a package's version pin: "foo==1.2.3.4", ">=1.2.3.4", "^1.2.3.4". Not "@" or
// "=" alone: "user@81.204.17.56" and "host=81.204.17.56" are addresses.
const PIN_BEFORE = /(?:==|>=|<=|~=|!=|[\^~])$/;

/**
 * Whether a CIDR value is a network range ("10.0.0.0/16", "172.16.0.0/12", "2001:db8::/32"): a
 * prefix shorter than the address, and no bit set after it, so it names a block of addresses, as a
 * netmask does, and no host. A host's address with its network's prefix ("inet 192.168.1.23/24", as
 * `ip addr` prints it) has bits set after the prefix and names that host, and "/32" ("/128") is a
 * single host: both stay masked.
 */
function isNetworkRange(value: string): boolean {
  const slash = value.indexOf('/');
  if (slash < 0) return false;
  const prefix = Number(value.slice(slash + 1));
  const bits = addressBits(value.slice(0, slash));
  if (bits === null || prefix >= bits.length) return false;
  for (let i = prefix; i < bits.length; i++) if (bits[i] === 1) return false;
  return true;
}

/** The address's bits, most significant first (32 for IPv4, 128 for IPv6), or null when unreadable. */
function addressBits(address: string): number[] | null {
  const bits: number[] = [];
  const push = (value: number, width: number) => {
    for (let b = width - 1; b >= 0; b--) bits.push((value >> b) & 1);
  };
  if (!address.includes(':')) {
    for (const octet of address.split('.')) push(Number(octet), 8);
    return bits.length === 32 ? bits : null;
  }
  // "::" stands for as many zero groups as the address leaves out; an embedded IPv4 tail is two groups.
  const [head, tail] = address.includes('::') ? address.split('::') : [address, undefined];
  const groups = (part: string | undefined): number[] | null => {
    if (part === undefined || part === '') return [];
    const out: number[] = [];
    for (const g of part.split(':')) {
      if (g.includes('.')) {
        const o = g.split('.').map(Number);
        out.push((o[0]! << 8) | o[1]!, (o[2]! << 8) | o[3]!);
      } else out.push(parseInt(g, 16));
    }
    return out.some((g) => Number.isNaN(g)) ? null : out;
  };
  const h = groups(head);
  const t = groups(tail);
  if (h === null || t === null) return null;
  const missing = 8 - h.length - t.length;
  if (missing < 0 || (tail === undefined && missing !== 0)) return null;
  for (const g of [...h, ...new Array<number>(missing).fill(0), ...t]) push(g, 16);
  return bits;
}

export function findIps(text: string, scan?: TextScan): Detection[] {
  const out: Detection[] = [];
  const s = scanOf(text, scan);
  const { digitRuns, colonRuns } = s;
  if (digitRuns.length > 0 && text.includes('.')) {
    // An IPv4 address starts with the first digit of a digit run, and has four dot-separated numbers.
    const v4 = new Matcher(IPV4, s, runsWithDigits(s, 4));
    // The end of the last dotted number read as a version: "from 1.2.3.3 to 1.2.3.4" are both.
    let versionEnd = -Infinity;
    for (let m = v4.exec(); m; m = v4.exec()) {
      const start = m.index;
      const end = start + m[0].length;
      if (
        cueNear(s, start, end, VERSION_CUE, { before: 24, after: 0 }) ||
        PIN_BEFORE.test(text.slice(Math.max(0, start - 2), start)) ||
        UPGRADE_TO.test(text.slice(Math.max(0, start - 40), start)) ||
        VERSION_AFTER.test(text.slice(end, end + 16)) ||
        (start - versionEnd <= 12 && JOINED.test(text.slice(versionEnd, start)))
      ) {
        // "from 1.2.3.3 to 1.2.3.4": the number this one is joined to was a version too.
        const previous = out.at(-1);
        if (previous !== undefined && start - previous.end <= 12 && JOINED.test(text.slice(previous.end, start))) out.pop();
        versionEnd = end;
        continue;
      }
      // Loopback, "any" and netmasks name no one: 127.0.0.1, 0.0.0.0, 255.255.255.0.
      if (m[0].startsWith('127.') || m[0].startsWith('0.') || m[0].startsWith('255.')) continue;
      if (isNetworkRange(m[0])) continue;
      out.push({ type: 'IP', start, end, text: m[0], checksum: false, normalized: m[0] });
    }
  }
  if (colonRuns.length > 0) {
    // An IPv6 address has two colons at most five characters apart, and starts at most four hex
    // digits before the first of them.
    const v6 = new Matcher(IPV6, s, colonRuns, { back: 4 });
    for (let m = v6.exec(); m; m = v6.exec()) {
      const value = m[0];
      const slash = value.indexOf('/');
      const addr = slash >= 0 ? value.slice(0, slash) : value;
      if (!isIPv6(addr)) continue;
      // "::" alone or tiny tokens like "a::b" in prose are not worth masking, real addresses have
      // at least one hex digit group of two or more characters.
      if (!/[0-9A-Fa-f]{2}/.test(addr)) continue;
      if (isNetworkRange(value)) continue;
      out.push({ type: 'IP', start: m.index, end: m.index + value.length, text: value, checksum: false, normalized: addr.toLowerCase() });
    }
  }
  return out;
}

export const ipRecognizer: Recognizer = {
  type: 'IP',
  // IPv6 addresses can in principle be digit-free ("fe80::abcd"), so no digit pre-filter here;
  // the recognizer has its own ('.' / ':') pre-filter instead.
  needsDigit: false,
  detect(text: string, _language: Language, scan?: TextScan): Detection[] {
    return findIps(text, scan);
  },
};
