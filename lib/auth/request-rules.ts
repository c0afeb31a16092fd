// Which requests the app answers at all (Host), which may change data (Origin), and which
// role a request needs. Pure functions: the proxy and the tests call them with plain values.
import { isIP } from "node:net";

import type { Role } from "../core/roles";

export type { Role };

export interface AccessSettings {
  /** The HOST setting, lowercased; IPv6 in brackets. */
  host: string;
  /** ALLOWED_HOSTS entries, lowercased: `name` (any port) or `name:port`. */
  allowedHosts: string[];
  /** ALLOWED_ORIGINS entries as URL origins (`scheme://host[:port]`). */
  allowedOrigins: string[];
}

const list = (value: string | undefined) =>
  (value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

const bracketIpv6 = (h: string) => (isIP(h) === 6 ? `[${h}]` : h);

export function accessSettings(env: { HOST: string; ALLOWED_HOSTS?: string; ALLOWED_ORIGINS?: string }): AccessSettings {
  return {
    host: bracketIpv6(env.HOST.trim().toLowerCase()),
    allowedHosts: list(env.ALLOWED_HOSTS).map((h) => h.toLowerCase()),
    allowedOrigins: list(env.ALLOWED_ORIGINS).flatMap((o) => {
      try {
        return [new URL(o).origin];
      } catch {
        return [];
      }
    }),
  };
}

/** Splits a Host header into lowercased hostname (IPv6 kept in brackets) and port; null when malformed. */
export function parseHost(value: string): { hostname: string; port: string } | null {
  const m = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/i.exec(value.trim());
  if (!m) return null;
  return { hostname: m[1].toLowerCase(), port: m[2] ?? "" };
}

/** A name of this machine only: localhost and *.localhost (RFC 6761), 127.0.0.0/8, [::1]. */
export function isLoopbackHostname(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, "");
  return h === "localhost" || h.endsWith(".localhost") || h === "[::1]" || (isIP(h) === 4 && h.startsWith("127."));
}

const WILDCARD = new Set(["0.0.0.0", "[::]"]);
const isIpLiteral = (hostname: string) => isIP(hostname.replace(/^\[|\]$/g, "")) !== 0;

/**
 * A Host header the app answers for: loopback names, the HOST setting, ALLOWED_HOSTS. Any other
 * name is refused, so a DNS name an attacker points at this machine (DNS rebinding) gets nothing.
 * With HOST bound to every address, IP literals are accepted too: no DNS name is involved.
 */
export function isAllowedHost(header: string | null, s: AccessSettings): boolean {
  if (!header) return false;
  const parsed = parseHost(header);
  if (!parsed) return false;
  const { hostname, port } = parsed;
  if (isLoopbackHostname(hostname) || hostname === s.host) return true;
  if (WILDCARD.has(s.host) && isIpLiteral(hostname)) return true;
  return s.allowedHosts.some((entry) => entry === hostname || (port !== "" && entry === `${hostname}:${port}`));
}

/** An Origin (or Referer) value is the app's own (same host and port as the Host header) or allowed. */
export function isAllowedOrigin(value: string, hostHeader: string | null, s: AccessSettings): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false; // "null" (sandboxed frames, privacy redirects) included
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  if (s.allowedOrigins.includes(url.origin)) return true;
  if (!hostHeader) return false;
  try {
    // The Host header read with the Origin's scheme, so a default port compares equal.
    return new URL(`${url.protocol}//${hostHeader}`).host === url.host;
  } catch {
    return false;
  }
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
export const isSafeMethod = (method: string) => SAFE_METHODS.has(method.toUpperCase());

/**
 * A state-changing request is refused when its Origin, or without one its Referer, is
 * another site. With neither it is allowed: browsers always send Origin on cross-site
 * POSTs, so such a request comes from a script or curl, which carries no victim's cookie.
 */
export function isAllowedRequestOrigin(
  method: string,
  headers: { origin: string | null; referer: string | null; host: string | null },
  s: AccessSettings,
): boolean {
  if (isSafeMethod(method)) return true;
  const source = headers.origin ?? headers.referer;
  if (source === null) return true;
  return isAllowedOrigin(source, headers.host, s);
}

/** Characters a path never needs to escape, and "/" and "\", whose escapes would route otherwise than they read. */
const NEVER_ESCAPED = /[A-Za-z0-9\-._~/\\]/;

/**
 * The path as Next routes it (percent-decoded), or why it is refused: a path that escapes a
 * character it never needs to ("/%61pi") reads as one route to these rules and reaches another.
 */
export function decodedPath(raw: string): { pathname: string } | { refusal: string } {
  for (const m of raw.matchAll(/%([0-9a-f]{2})/gi)) {
    const c = String.fromCharCode(parseInt(m[1], 16));
    if (NEVER_ESCAPED.test(c)) {
      return {
        refusal: "/\\".includes(c)
          ? `The path contains ${m[0]}, an escaped "${c}", which this app does not accept; send the path without it.`
          : `The path escapes "${c}" as ${m[0]}, which a path never needs; send "${c}" as itself.`,
      };
    }
  }
  try {
    return { pathname: decodeURIComponent(raw) };
  } catch {
    return { refusal: "The path is not valid percent-encoding (a % must be followed by two hex digits of UTF-8)." };
  }
}

const SEARCH_ALIAS = /^\/agents\/[^/]+\/documents\/search\/?$/;

/** Route handlers: everything under /api, and the search endpoint's alias. */
export const isRouteHandlerPath = (pathname: string) => pathname === "/api" || pathname.startsWith("/api/") || SEARCH_ALIAS.test(pathname);

/** Reachable without signing in: the sign-in page (and its action), health, static assets. */
export const isPublicPath = (pathname: string) =>
  pathname === "/login" ||
  pathname === "/api/health" ||
  pathname.startsWith("/_next/static/") ||
  pathname.startsWith("/_next/image") ||
  pathname === "/favicon.ico";

/** POSTs that only read: search, inspection and recall runs. */
const VIEWER_POSTS = [
  SEARCH_ALIAS,
  /^\/(?:api\/)?agents\/[^/]+\/ask\/?$/,
  /^\/api\/agents\/[^/]+\/documents\/search\/?$/,
  /^\/api\/agents\/[^/]+\/inspect\/?$/,
  /^\/api\/agents\/[^/]+\/evals\/?$/,
  /^\/api\/agents\/[^/]+\/questions\/replay\/?$/,
];

/**
 * The role a request needs. A server action (a POST with `Next-Action` to a page) answers
 * "action": the action checks the role itself, since the proxy cannot tell actions apart.
 * Route handler paths never count as actions, whatever headers the request carries.
 */
export function requiredRole(method: string, pathname: string, nextAction: boolean): Role | "action" {
  if (isSafeMethod(method)) return "viewer";
  const post = method.toUpperCase() === "POST";
  if (post && nextAction && !isRouteHandlerPath(pathname)) return "action";
  if (post && VIEWER_POSTS.some((re) => re.test(pathname))) return "viewer";
  return "editor";
}

export const roleAllows = (have: Role, need: Role) => have === "editor" || need === "viewer";

export const roleRefusal = (need: Role, have: Role) =>
  `This needs the ${need} role; you are signed in as ${have === "editor" ? "an editor" : "a viewer"}.`;

/** A `next` parameter kept only when it stays on this app (never `//host`, a backslash or a control character). */
export function safeNextPath(value: unknown): string {
  if (typeof value !== "string" || !value.startsWith("/")) return "/";
  const base = "http://app.invalid";
  let url: URL;
  try {
    url = new URL(value, base);
  } catch {
    return "/";
  }
  if (url.origin !== base || /[\\\u0000-\u001f]/.test(value) || url.pathname === "/login") return "/";
  // "/.//host" resolves to the path "//host", which a browser reads as another site.
  if (url.pathname.startsWith("//")) return "/";
  return url.pathname + url.search + url.hash;
}
