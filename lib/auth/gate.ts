// The checks every request passes before the app acts on it: the Host it was sent to, where a
// change comes from, and (with ADMIN_PASSWORD set) who is asking and whether their role allows
// it. The proxy runs them for every request; the upload routes, which the proxy leaves out so
// Next does not buffer their bodies, run them first thing themselves.
import { NextResponse } from "next/server";
import { authConfig } from "./config";
import { identify } from "./identity";
import {
  isAllowedHost,
  isAllowedRequestOrigin,
  isPublicPath,
  isRouteHandlerPath,
  requiredRole,
  roleAllows,
  roleRefusal,
} from "./request-rules";
import { SESSION_COOKIE } from "./session";
import { isLoopbackAddress, peerOf } from "./peer";
import { ERROR_STATUS, type ErrorCode } from "../core/errors";

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

/**
 * Without ADMIN_PASSWORD everyone who reaches the app is an editor, so it answers only requests
 * made on this machine, straight to it: not through a proxy (which may forward anyone's) and
 * not from another address (`next start -H 0.0.0.0` skips the launcher's check of HOST).
 */
function openAccessRefusal(req: Request): NextResponse | null {
  const peer = peerOf(req.headers);
  // Stamped by the server as each request arrives (lib/auth/peer-stamp.mjs); only a request that came
  // in while the server was still starting has none.
  if (!peer) return refuse("starting", "The app is still starting; try again in a moment.");
  if (peer.forwarded.length > 0) {
    return refuse("sign_in_required",
      `This request came through a proxy (it carries ${peer.forwarded.join(", ")}), and sign-in is off, which would make anyone it forwards an editor. Set ADMIN_PASSWORD to serve the app through a proxy.`,
    );
  }
  if (!isLoopbackAddress(peer.address)) {
    return refuse("sign_in_required",
      `This request came from ${peer.address}, another machine, and sign-in is off, which would make anyone who reaches the app an editor. Set ADMIN_PASSWORD to serve the app beyond this machine.`,
    );
  }
  return null;
}

/** A refusal or a redirect to sign in; null when the request may go on. */
export async function gateRequest(req: Request): Promise<NextResponse | null> {
  const config = authConfig();
  // Every HTTP/1.1 request has a Host header; a Request built in code falls back to its URL.
  const host = req.headers.get("host") ?? new URL(req.url).host;
  if (!isAllowedHost(host, config.access)) {
    return refuse("forbidden_host", `This app does not answer for the host "${host ?? ""}"; add it to ALLOWED_HOSTS to allow it.`);
  }
  const origin = { origin: req.headers.get("origin"), referer: req.headers.get("referer"), host };
  if (!isAllowedRequestOrigin(req.method, origin, config.access)) {
    return refuse("forbidden_origin", "Changes must come from this app's own pages or an origin listed in ALLOWED_ORIGINS.");
  }
  if (!config.enabled) return openAccessRefusal(req);

  const url = new URL(req.url);
  const { pathname, search } = url;
  if (isPublicPath(pathname)) return null;
  const nextAction = req.headers.has("next-action");
  const authorization = req.headers.get("authorization");
  const session = cookieValue(req.headers.get("cookie"), SESSION_COOKIE);
  const who = await identify(session, authorization);
  if (!who) {
    if (authorization !== null) return refuse("unauthorized", "The bearer token is not valid: unknown, revoked, expired or malformed.");
    if (isRouteHandlerPath(pathname) || nextAction || req.method !== "GET") {
      return refuse("unauthorized", "Sign in first (the session is missing or has expired), or send Authorization: Bearer <token>.");
    }
    const login = new URL("/login", url);
    if (pathname !== "/") login.searchParams.set("next", pathname + search);
    const res = NextResponse.redirect(login);
    if (session !== undefined) res.cookies.delete(SESSION_COOKIE);
    return res;
  }
  const need = requiredRole(req.method, pathname, nextAction);
  if (need !== "action" && !roleAllows(who.role, need)) return refuse("forbidden", roleRefusal(need, who.role));
  return null;
}
