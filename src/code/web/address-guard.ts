import { lookup as dnsLookup } from "node:dns/promises";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

/** One address a name resolves to, as `dns.lookup` with `all: true` gives it. */
export type ResolvedAddress = { address: string; family: number };

/** Resolves a host name to all its addresses (default: `dns.lookup` with `all: true`). Tests inject their own. */
export type LookupAll = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/** The system resolver, every address it returns, in its order. */
export const lookupAll: LookupAll = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * Whether `address` is a public unicast address a fetch may reach. Everything else is refused: loopback, link-local
 * (169.254.169.254, the cloud metadata service, among them), private (RFC 1918, unique-local fc00::/7), carrier-grade
 * NAT (100.64.0.0/10), the unspecified 0.0.0.0 and ::, multicast, broadcast, reserved and documentation ranges, and
 * IPv6 forms that carry an IPv4 address (IPv4-mapped, NAT64, 6to4, Teredo) — which could name any of those.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress())
    return isPublicAddress((parsed as ipaddr.IPv6).toIPv4Address().toString());
  return parsed.range() === "unicast";
}

/** A host the guard refused, and why, in words the model reads. */
export class PrivateAddressError extends Error {
  override name = "PrivateAddressError";
}

/**
 * The addresses to connect to for `host` (a name or an IP literal, without brackets): every address it resolves to,
 * checked. When any of them is not public, the host is refused — a name answering with one public and one private
 * address is a rebinding trick — unless `allowPrivate` (a permission rule names the host). The caller connects only
 * to the addresses returned, so a resolver that answers differently the second time cannot swap them.
 */
export async function resolveCheckedAddresses(
  host: string,
  options: { lookup: LookupAll; allowPrivate: boolean },
): Promise<ResolvedAddress[]> {
  const literal = isIP(host);
  const addresses: ResolvedAddress[] = literal !== 0 ? [{ address: host, family: literal }] : [...(await options.lookup(host))];
  if (addresses.length === 0) throw new Error(`${host} does not resolve to any address`);
  if (options.allowPrivate) return addresses;
  const inner = addresses.find((entry) => !isPublicAddress(entry.address));
  if (inner)
    throw new PrivateAddressError(
      literal !== 0
        ? `${host} is a loopback, link-local or private address; WebFetch reaches one only when an allow rule names it: WebFetch(domain:${host})`
        : `${host} resolves to ${inner.address}, a loopback, link-local or private address; WebFetch reaches one only when an allow rule names the host: WebFetch(domain:${host})`,
    );
  return addresses;
}
