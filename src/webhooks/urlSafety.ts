import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

// Where a webhook may be sent. A URL a caller gives is fetched by our worker from inside our
// network, so it must not reach what only that network can reach (server-side request forgery):
// https only, and no host that resolves to a private, loopback, link-local or otherwise special
// address. The check runs when the endpoint is saved and again at every delivery, and the
// delivery connects to the very address that was checked, so a DNS answer that changes in
// between (rebinding) cannot slip through. WEBHOOKS_ALLOW_HTTP=1 lifts both rules, for
// development and tests against a receiver on loopback.

export const MAX_URL_LENGTH = 2048;

// One list per family, each checked only against addresses of its own: Node's BlockList matches an
// IPv4 address against IPv6 rules through its IPv4-mapped form, so the ::ffff:0:0/96 rule in a
// shared list refused every IPv4 address, public ones included.
const REFUSED_IPV4 = new BlockList();
const REFUSED_IPV6 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network", 0.0.0.0 among them
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata services among them
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24], // 6to4 relay anycast (deprecated, RFC 7526): a relay into whatever IPv6 says
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast among them
] as const) {
  REFUSED_IPV4.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 96], // unspecified, loopback and IPv4-compatible (::7f00:1 is 127.0.0.1)
  ['::ffff:0:0', 96], // IPv4-mapped
  ['::ffff:0:0:0', 96], // IPv4-translated (SIIT), which maps onto IPv4 too
  ['64:ff9b::', 96], // NAT64, which maps onto IPv4 again
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215)
  ['2002::', 16], // 6to4, which embeds an IPv4 address (2002:7f00:1:: is 127.0.0.1's)
  ['2001::', 32], // Teredo, which embeds one too
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation (RFC 9637)
  ['2001:10::', 28], // ORCHID
  ['2001:20::', 28], // ORCHIDv2
  ['5f00::', 16], // SRv6 segment identifiers
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated, still routed inside some networks)
  ['ff00::', 8], // multicast
] as const) {
  REFUSED_IPV6.addSubnet(network, prefix, 'ipv6');
}

export class WebhookUrlRefused extends Error {
  override name = 'WebhookUrlRefused';
}

export interface ResolvedTarget {
  url: URL;
  /** The address the connection must go to: the one that was checked. */
  address: string;
  family: 4 | 6;
}

/** The URL's form alone: scheme, length, no credentials. Throws WebhookUrlRefused with the reason. */
export function checkWebhookUrlForm(raw: string, { allowHttp }: { allowHttp: boolean }): URL {
  if (raw.length > MAX_URL_LENGTH) throw new WebhookUrlRefused(`must be at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookUrlRefused('is not a URL');
  }
  const schemes = allowHttp ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) {
    throw new WebhookUrlRefused(allowHttp ? 'must be an http or https URL' : 'must be an https URL (plain http only where WEBHOOKS_ALLOW_HTTP=1 is set, in development)');
  }
  if (url.username || url.password) throw new WebhookUrlRefused('must not hold a user name or password');
  return url;
}

/**
 * Resolves the URL's host and checks every address it resolves to (one refused address refuses
 * the URL: which of them a connection would use is not ours to choose). Returns the address to
 * connect to.
 */
export async function resolveWebhookTarget(raw: string, { allowHttp }: { allowHttp: boolean }): Promise<ResolvedTarget> {
  const url = checkWebhookUrlForm(raw, { allowHttp });
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: { address: string; family: number }[];
  try {
    addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await lookup(host, { all: true, verbatim: true });
  } catch (err) {
    throw new WebhookUrlRefused(`does not resolve (${host}: ${(err as NodeJS.ErrnoException).code ?? 'lookup failed'})`);
  }
  if (addresses.length === 0) throw new WebhookUrlRefused(`does not resolve (${host})`);
  if (!allowHttp) {
    for (const { address, family } of addresses) {
      if (family === 6 ? REFUSED_IPV6.check(address, 'ipv6') : REFUSED_IPV4.check(address, 'ipv4')) {
        throw new WebhookUrlRefused(`resolves to ${address} (${host}), a private, loopback, link-local or reserved address`);
      }
    }
  }
  const first = addresses[0]!;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
