/**
 * How `WebFetch(domain:…)` rules and the sandbox's `allowedDomains` name hosts: `example.com` is that host only,
 * `*.example.com` its subdomains (not example.com itself), `*` every host; a `:port` suffix narrows to that port.
 */
export type DomainPattern = string;

/** A URL's host as rules name it: lower case, IPv6 without brackets, without the root's dot (`example.com.`). */
export function hostOfUrl(url: URL): string {
  return url.hostname
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1")
    .replace(/\.$/, "");
}

/** The port a URL connects to: its own, or its scheme's. */
export function portOfUrl(url: URL): number {
  if (url.port !== "") return Number(url.port);
  return url.protocol === "http:" ? 80 : 443;
}

/** Whether `pattern` (a rule's domain) covers a request to `host` on `port`. */
export function domainPatternMatches(pattern: DomainPattern, host: string, port: number): boolean {
  const { name, port: patternPort } = splitPattern(pattern);
  if (patternPort !== undefined && patternPort !== port) return false;
  if (name === "*") return true;
  if (name.startsWith("*.")) return host.endsWith(name.slice(1));
  return host === name;
}

/**
 * Whether `pattern` names `host` itself, not through a wildcard: only such a rule lets WebFetch reach a loopback,
 * link-local or private address (`WebFetch(domain:localhost)`, `WebFetch(domain:127.0.0.1:8080)`).
 */
export function domainPatternNames(pattern: DomainPattern, host: string, port: number): boolean {
  const { name, port: patternPort } = splitPattern(pattern);
  return !name.includes("*") && name === host && (patternPort === undefined || patternPort === port);
}

function splitPattern(pattern: DomainPattern): { name: string; port: number | undefined } {
  const match = /^(.*?)(?::(\d{1,5}))?$/.exec(pattern.trim().toLowerCase());
  const name = match?.[1] ?? pattern;
  return { name, port: match?.[2] === undefined ? undefined : Number(match[2]) };
}
