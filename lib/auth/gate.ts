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

const refuse = (status: number, code: string, message: string) => NextResponse.json({ error: { code, message } }, { status });

const cookieValue = (header: string | null, name: string): string | undefined => {
  for (const part of (header ?? "").split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) return decodeURIComponent(v.join("="));
  }
  return undefined;
};

/** A refusal or a redirect to sign in; null when the request may go on. */
export async function gateRequest(req: Request): Promise<NextResponse | null> {
  const config = authConfig();
  // Every HTTP/1.1 request has a Host header; a Request built in code falls back to its URL.
  const host = req.headers.get("host") ?? new URL(req.url).host;
  if (!isAllowedHost(host, config.access)) {
    return refuse(403, "forbidden_host", `This app does not answer for the host "${host ?? ""}"; add it to ALLOWED_HOSTS to allow it.`);
  }
  const origin = { origin: req.headers.get("origin"), referer: req.headers.get("referer"), host };
  if (!isAllowedRequestOrigin(req.method, origin, config.access)) {
    return refuse(403, "forbidden_origin", "Changes must come from this app's own pages or an origin listed in ALLOWED_ORIGINS.");
  }
  if (!config.enabled) return null;

  const url = new URL(req.url);
  const { pathname, search } = url;
  if (isPublicPath(pathname)) return null;
  const nextAction = req.headers.has("next-action");
  const authorization = req.headers.get("authorization");
  const session = cookieValue(req.headers.get("cookie"), SESSION_COOKIE);
  const who = await identify(session, authorization);
  if (!who) {
    if (authorization !== null) return refuse(401, "unauthorized", "The bearer token is not valid: unknown, revoked or malformed.");
    if (isRouteHandlerPath(pathname) || nextAction || req.method !== "GET") {
      return refuse(401, "unauthorized", "Sign in first (the session is missing or has expired), or send Authorization: Bearer <token>.");
    }
    const login = new URL("/login", url);
    if (pathname !== "/") login.searchParams.set("next", pathname + search);
    const res = NextResponse.redirect(login);
    if (session !== undefined) res.cookies.delete(SESSION_COOKIE);
    return res;
  }
  const need = requiredRole(req.method, pathname, nextAction);
  if (need !== "action" && !roleAllows(who.role, need)) return refuse(403, "forbidden", roleRefusal(need, who.role));
  return null;
}
