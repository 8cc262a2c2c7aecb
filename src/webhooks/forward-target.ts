import dns from 'node:dns';
import type { LookupAddress } from 'node:dns';
import ipaddr from 'ipaddr.js';

/** Where RouteGate may send: production refuses non-https URLs and private targets unless the operator allows them. */
export interface TargetPolicy {
  /** https only, and every resolved address must be public unicast (unless allowPrivate). */
  production: boolean;
  /** ROUTEGATE_ALLOW_PRIVATE_FORWARD_URLS: private, loopback and link-local targets allowed in production too. */
  allowPrivate: boolean;
}

export class TargetRefused extends Error {
  readonly code = 'ROUTEGATE_TARGET_REFUSED';
}

/**
 * Public unicast only (ipaddr.js ranges): refuses loopback, private, link-local (169.254.169.254, the cloud
 * metadata address), CGNAT, unique-local, multicast, reserved, unspecified and the IPv6 forms that embed an IPv4
 * address (an IPv4-mapped ::ffff:127.0.0.1 is judged as the IPv4 it maps).
 */
export function isPublicAddress(address: string): boolean {
  return refusedRange(address) === undefined;
}

// ipaddr.js range names in the words the refusal uses.
const RANGE_WORDS: Record<string, string> = {
  loopback: 'loopback', private: 'private', linkLocal: 'link-local', carrierGradeNat: 'CGNAT (100.64.0.0/10)', uniqueLocal: 'unique-local',
  unspecified: 'unspecified', multicast: 'multicast', broadcast: 'broadcast', reserved: 'reserved', rfc6052: 'IPv4-embedding (64:ff9b::/96)',
  rfc6145: 'IPv4-translated', '6to4': '6to4', teredo: 'Teredo', benchmarking: 'benchmarking', amt: 'AMT', as112: 'AS112', deprecated: 'deprecated',
  orchid2: 'ORCHIDv2', droneRemoteIdProtocolEntityTags: 'reserved', discard: 'discard-only',
};

/** Why an address is not public unicast, in words naming the rule (undefined: it is public). */
export function refusedRange(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    const inner = refusedRange((parsed as ipaddr.IPv6).toIPv4Address().toString());
    return inner === undefined ? undefined : `IPv4-mapped ${inner}`;
  }
  if (address === '169.254.169.254' || address.toLowerCase() === 'fd00:ec2::254') return 'cloud metadata (link-local)';
  const range = parsed.range();
  return range === 'unicast' ? undefined : RANGE_WORDS[range] ?? range;
}

const strictTargets = (p: TargetPolicy) => p.production && !p.allowPrivate;

/** The URL as RouteGate will call it, or TargetRefused saying why (before any address is resolved). */
export function parseTarget(raw: string, policy: TargetPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TargetRefused('the URL is not valid');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TargetRefused(`${url.protocol} URLs are not allowed`);
  if (policy.production && url.protocol !== 'https:') throw new TargetRefused('only https URLs are allowed in production (http refused)');
  if (url.username || url.password) throw new TargetRefused('URLs with credentials are not allowed');
  return url;
}

/** Every address the host resolves to (an IP literal is its own), each checked; throws TargetRefused naming one. */
export async function checkTarget(url: URL, policy: TargetPolicy): Promise<void> {
  if (!strictTargets(policy)) return;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = ipaddr.isValid(host) ? [host] : (await dns.promises.lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  const refused = addresses.find((a) => !isPublicAddress(a));
  if (refused !== undefined || addresses.length === 0) {
    const rule = refused === undefined ? '' : ` (${refusedRange(refused)})`;
    throw new TargetRefused(`${url.hostname} resolves to ${refused ?? 'nothing'}${rule}, which is not a public address`);
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A dns.lookup for the HTTP agent that refuses private answers at connect time too: a host that resolved to a
 * public address when checked cannot be re-pointed at 127.0.0.1 for the connection (DNS rebinding).
 */
export function guardedLookup(policy: TargetPolicy) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const list = addresses as LookupAddress[];
      const refused = strictTargets(policy) ? list.find((a) => !isPublicAddress(a.address)) : undefined;
      if (refused) return callback(new TargetRefused(`${hostname} resolves to ${refused.address} (${refusedRange(refused.address)}), which is not a public address`), []);
      if (options.all) return callback(null, list);
      callback(null, list[0].address, list[0].family);
    });
  };
}

/**
 * The same policy as at send time, when a merchant saves a URL: refused at once with the rule it breaks rather
 * than learnt from failed deliveries. The send-time check stays (DNS can change after saving).
 */
export async function checkSavedTarget(raw: string, policy: TargetPolicy): Promise<string | undefined> {
  try {
    await checkTarget(parseTarget(raw, policy), policy);
    return undefined;
  } catch (err) {
    if (err instanceof TargetRefused) return err.message;
    const code = (err as { code?: string }).code;
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ENODATA') return `${new URL(raw).hostname} does not resolve`;
    throw err;
  }
}
