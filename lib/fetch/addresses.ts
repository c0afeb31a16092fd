// Which addresses the public internet routes to, which hosts FETCH_ALLOW_HOSTS names, and the
// site (host and port) a URL is on: the pure part of the fetch policy.
import { BlockList, isIP } from "node:net";

// Not reachable from the public internet, or not unicast: this host, its networks, documentation ranges.
// Two lists: node compares IPv4 addresses with IPv6 rules as mapped ones, so ::ffff:0:0/96 would block every IPv4.
const notPublic4 = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  notPublic4.addSubnet(net, prefix, "ipv4");
}

// Only global unicast (2000::/3) is routed; everything outside it is reserved, local or multicast.
const globalUnicast = new BlockList();
globalUnicast.addSubnet("2000::", 3, "ipv6");

const notPublic6 = new BlockList();
for (const [net, prefix] of [
  // Outside 2000::/3 already; named so each stays blocked should that rule ever change.
  ["::", 128],
  ["::1", 128],
  ["::", 96],
  ["::ffff:0:0", 96],
  ["64:ff9b::", 96],
  ["64:ff9b:1::", 48],
  ["100::", 64],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
  // Inside 2000::/3: Teredo, benchmarking, documentation, 6to4 (they carry or stand for other networks).
  ["2001::", 32],
  ["2001:2::", 48],
  ["2001:db8::", 32],
  ["2002::", 16],
  ["3fff::", 20],
] as const) {
  notPublic6.addSubnet(net, prefix, "ipv6");
}

/** True only for an IP address the public internet routes to; false for private, loopback, link-local, reserved, and anything not an IP. */
export function isPublicAddress(address: string): boolean {
  // A zone (fe80::1%eth0) would make BlockList miss the address it qualifies.
  const bare = address.trim().replace(/%.*$/, "");
  const family = isIP(bare);
  if (family === 4) return !notPublic4.check(bare, "ipv4");
  if (family !== 6) return false;
  return globalUnicast.check(bare, "ipv6") && !notPublic6.check(bare, "ipv6");
}

export const withoutDot = (name: string) => name.replace(/\.$/, "");

const effectivePort = (url: URL) => url.port || (url.protocol === "https:" ? "443" : "80");

/**
 * The site a URL is on: its host, and its port when not the scheme's default. http://wiki and
 * https://wiki are one site, so a move to TLS stays on it; http://wiki:8080 is another.
 */
export function siteOf(url: URL): string {
  return `${withoutDot(url.hostname)}${url.port ? `:${url.port}` : ""}`;
}

/** A FETCH_ALLOW_HOSTS entry as host (bracketed when IPv6) and port; port null: the scheme's default. */
function parseEntry(entry: string): { host: string; port: string | null } {
  const e = withoutDot(entry.trim().toLowerCase());
  const bracketed = /^(\[[^\]]+\])(?::(\d+))?$/.exec(e);
  if (bracketed) return { host: bracketed[1]!, port: bracketed[2] ?? null };
  if (isIP(e) === 6) return { host: `[${e}]`, port: null };
  const named = /^(.*?)(?::(\d+))?$/.exec(e)!;
  return { host: withoutDot(named[1]!), port: named[2] ?? null };
}

/** Whether FETCH_ALLOW_HOSTS names the URL's host and port: a bare name means the scheme's default port only. */
export function allowListed(url: URL, allowHosts: string[]): boolean {
  const host = withoutDot(url.hostname);
  return allowHosts.some((entry) => {
    const e = parseEntry(entry);
    let entryHost = e.host;
    // The URL parser writes IPv6 one canonical way; write the entry the same way to compare.
    if (entryHost.startsWith("[")) {
      try {
        entryHost = new URL(`http://${entryHost}/`).hostname;
      } catch {
        return false;
      }
    }
    if (entryHost !== host) return false;
    return e.port === null ? url.port === "" : e.port === effectivePort(url);
  });
}
