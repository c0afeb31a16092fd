// The checks every request passes before the app acts on it: the Host it was sent to, where a
// change comes from, and (with ADMIN_PASSWORD set) who is asking and whether their role allows
// it. The proxy runs them for every request; the upload routes, which the proxy leaves out so
// Next does not buffer their bodies, run them first thing themselves. Every route handler also
// checks the role it declares (handlerRoleRefusal): the proxy reads a path, Next routes another.
import { NextResponse } from "next/server";
import { ERROR_STATUS, type ErrorCode } from "../core/errors";
import { authConfig, type AuthConfig } from "./config";
import { identify } from "./identity";
import {
  decodedPath,
  isAllowedHost,
  isAllowedRequestOrigin,
  isLoopbackHostname,
  isPublicPath,
  isRouteHandlerPath,
  parseHost,
  requiredRole,
  roleAllows,
  roleRefusal,
  type Role,
} from "./request-rules";
import { SESSION_COOKIE } from "./session";
import { isLoopbackAddress, peerOf } from "./peer";
import { authState } from "./state";

/** What a route handler declares it needs: a role, or nothing at all (health). */
export type Access = Role | "public";

const refuse = (code: ErrorCode, message: string) => NextResponse.json({ error: { code, message } }, { status: ERROR_STATUS[code] });

/** A cookie's value; a value that is not valid percent-encoding is returned as sent (and then fails verification). */
const cookieValue = (header: string | null, name: string): string | undefined => {
  for (const part of (header ?? "").split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k !== name) continue;
    try {
      return decodeURIComponent(v.join("="));
    } catch {
      return v.join("=");
    }
  }
  return undefined;
};

/** The host an Origin or Referer names; null for "null" or anything that is not a URL. */
const urlHost = (value: string | null): string | null => {
  if (!value) return null;
  try {
    return new URL(value).hostname;
  } catch {
    return null;
  }
};

const OPEN_MODE_PROXY_HINT =
  "Set ADMIN_PASSWORD to serve the app through a proxy or to other machines (names in ALLOWED_HOSTS need it too).";

/**
 * Without ADMIN_PASSWORD everyone who reaches the app is an editor, so it answers only requests
 * made on this machine, straight to it and addressed to it: not through a proxy (which may forward
 * anyone's, with or without saying so), not from another address (`next start -H 0.0.0.0` skips
 * the launcher's check of HOST), and not for a name other than this machine's.
 */
function openAccessRefusal(req: Request, host: string): NextResponse | null {
  const peer = peerOf(req.headers);
  // Stamped by the server as each request arrives (lib/auth/peer-stamp.mjs); only a request that came
  // in while the server was still starting has none.
  if (!peer) return refuse("starting", "The app is still starting; try again in a moment.");
  if (peer.forwarded.length > 0) {
    return refuse(
      "sign_in_required",
      `This request came through a proxy (it carries ${peer.forwarded.join(", ")}), and sign-in is off, which would make anyone it forwards an editor. ${OPEN_MODE_PROXY_HINT}`,
    );
  }
  if (!isLoopbackAddress(peer.address)) {
    return refuse(
      "sign_in_required",
      `This request came from ${peer.address}, another machine, and sign-in is off, which would make anyone who reaches the app an editor. ${OPEN_MODE_PROXY_HINT}`,
    );
  }
  // A proxy that adds no forwarding header still names the public host it was reached by, in the
  // Host it passes on or in the Origin and Referer of the requests its pages make. A browser says
  // when a request comes from another site (a link to this app), whose Referer names that site.
  const fetchSite = req.headers.get("sec-fetch-site");
  const fromOwnPage = fetchSite === null || fetchSite === "same-origin";
  const named = [
    ["Host", parseHost(host)?.hostname ?? host],
    ["Origin", fromOwnPage ? urlHost(req.headers.get("origin")) : null],
    ["Referer", fromOwnPage ? urlHost(req.headers.get("referer")) : null],
  ].find(([, name]) => name !== null && !isLoopbackHostname(name!));
  if (named) {
    return refuse(
      "sign_in_required",
      `This request was addressed to "${named[1]}" (its ${named[0]} header), not to this machine, and sign-in is off, so the app answers only localhost, 127.0.0.1 and [::1]. ${OPEN_MODE_PROXY_HINT}`,
    );
  }
  return null;
}

/**
 * With sign-in on and TRUST_PROXY off, a proxy's clients all count as the proxy's one address for
 * the sign-in throttle, so one client's failures lock out the rest: said once, at the first sign.
 */
function warnUntrustedProxy(req: Request, config: AuthConfig) {
  if (config.trustProxy) return;
  const forwarded = peerOf(req.headers)?.forwarded ?? [];
  if (forwarded.length === 0) return;
  const state = authState();
  if (state.untrustedProxyWarned) return;
  state.untrustedProxyWarned = true;
  console.warn(
    `[kb-inspector] A request arrived with ${forwarded.join(", ")}, so the app seems to run behind a proxy, and TRUST_PROXY is off: ` +
      "the sign-in throttle counts every client of that proxy as one (the proxy's address), so one client's failed sign-ins make all of them wait. " +
      "Set TRUST_PROXY=1 when a proxy you run sets X-Forwarded-For (its last entry is then the client).",
  );
}

/**
 * Who is asking, against the role needed: a refusal, a redirect to sign in (`page`: a page a
 * browser navigates to), or null when the request may go on.
 */
async function signInRefusal(req: Request, need: Role | "action", page: URL | null): Promise<NextResponse | null> {
  const authorization = req.headers.get("authorization");
  const session = cookieValue(req.headers.get("cookie"), SESSION_COOKIE);
  const who = await identify(session, authorization);
  if (!who) {
    if (authorization !== null) return refuse("unauthorized", "The bearer token is not valid: unknown, revoked, expired or malformed.");
    if (!page)
      return refuse("unauthorized", "Sign in first (the session is missing or has expired), or send Authorization: Bearer <token>.");
    const login = new URL("/login", page);
    if (page.pathname !== "/") login.searchParams.set("next", page.pathname + page.search);
    const res = NextResponse.redirect(login);
    if (session !== undefined) res.cookies.delete(SESSION_COOKIE);
    return res;
  }
  if (need !== "action" && !roleAllows(who.role, need)) return refuse("forbidden", roleRefusal(need, who.role));
  return null;
}

/**
 * A refusal or a redirect to sign in; null when the request may go on. `declared`: the access a
 * route handler that gates itself declares, which then decides instead of the path.
 */
export async function gateRequest(req: Request, declared?: Access): Promise<NextResponse | null> {
  const config = authConfig();
  const url = new URL(req.url);
  // Every HTTP/1.1 request has a Host header; a Request built in code falls back to its URL.
  const host = req.headers.get("host") ?? url.host;
  if (!isAllowedHost(host, config.access)) {
    const remedy = config.enabled ? "add it to ALLOWED_HOSTS to allow it" : "to serve it, set ADMIN_PASSWORD and add it to ALLOWED_HOSTS";
    return refuse("forbidden_host", `This app does not answer for the host "${host ?? ""}"; ${remedy}.`);
  }
  const origin = { origin: req.headers.get("origin"), referer: req.headers.get("referer"), host };
  if (!isAllowedRequestOrigin(req.method, origin, config.access)) {
    return refuse("forbidden_origin", "Changes must come from this app's own pages or an origin listed in ALLOWED_ORIGINS.");
  }
  if (!config.enabled) {
    const refusal = openAccessRefusal(req, host);
    if (refusal) return refusal;
  }
  // Classified as Next routes it: decoded, and refused where decoding would change the route.
  const path = decodedPath(url.pathname);
  if ("refusal" in path) return refuse("invalid_path", path.refusal);
  if (!config.enabled) return null;
  warnUntrustedProxy(req, config);

  const { pathname } = path;
  if (declared === "public" || (declared === undefined && isPublicPath(pathname))) return null;
  if (declared !== undefined) return signInRefusal(req, declared, null);
  const nextAction = req.headers.has("next-action");
  const page = isRouteHandlerPath(pathname) || nextAction || req.method !== "GET" ? null : url;
  return signInRefusal(req, requiredRole(req.method, pathname, nextAction), page);
}

/**
 * The role check every route handler runs itself, whether or not the proxy ran the gate before
 * it: the proxy is the first gate, not the only one. Sign-in off, everyone is an editor.
 */
export async function handlerRoleRefusal(req: Request, need: Access): Promise<NextResponse | null> {
  if (need === "public" || !authConfig().enabled) return null;
  return signInRefusal(req, need, null);
}
