// Runs before every page, route handler and server action (Node.js runtime): refuses unknown
// Host headers and cross-origin writes even with sign-in off, then, with ADMIN_PASSWORD set,
// requires a session or a bearer token and the role a route handler needs.
import { NextResponse, type NextRequest } from "next/server";
import { authConfig } from "@/lib/auth/config";
import { identify } from "@/lib/auth/identity";
import {
  isAllowedHost,
  isAllowedRequestOrigin,
  isPublicPath,
  isRouteHandlerPath,
  requiredRole,
  roleAllows,
  roleRefusal,
} from "@/lib/auth/request-rules";
import { SESSION_COOKIE } from "@/lib/auth/session";

const refuse = (status: number, code: string, message: string) => NextResponse.json({ error: { code, message } }, { status });

export async function proxy(req: NextRequest) {
  const config = authConfig();
  const host = req.headers.get("host");
  if (!isAllowedHost(host, config.access)) {
    return refuse(403, "forbidden_host", `This app does not answer for the host "${host ?? ""}"; add it to ALLOWED_HOSTS to allow it.`);
  }
  const origin = { origin: req.headers.get("origin"), referer: req.headers.get("referer"), host };
  if (!isAllowedRequestOrigin(req.method, origin, config.access)) {
    return refuse(403, "forbidden_origin", "Changes must come from this app's own pages or an origin listed in ALLOWED_ORIGINS.");
  }
  if (!config.enabled) return NextResponse.next();

  const { pathname, search } = req.nextUrl;
  if (isPublicPath(pathname)) return NextResponse.next();
  const nextAction = req.headers.has("next-action");
  const authorization = req.headers.get("authorization");
  const who = await identify(req.cookies.get(SESSION_COOKIE)?.value, authorization);
  if (!who) {
    if (authorization !== null) return refuse(401, "unauthorized", "The bearer token is not valid: unknown, revoked or malformed.");
    if (isRouteHandlerPath(pathname) || nextAction || req.method !== "GET") {
      return refuse(401, "unauthorized", "Sign in first (the session is missing or has expired), or send Authorization: Bearer <token>.");
    }
    const login = new URL("/login", req.url);
    if (pathname !== "/") login.searchParams.set("next", pathname + search);
    const res = NextResponse.redirect(login);
    if (req.cookies.has(SESSION_COOKIE)) res.cookies.delete(SESSION_COOKIE);
    return res;
  }
  const need = requiredRole(req.method, pathname, nextAction);
  if (need !== "action" && !roleAllows(who.role, need)) return refuse(403, "forbidden", roleRefusal(need, who.role));
  return NextResponse.next();
}

export const config = {
  // Static build output needs no checks; everything else, server actions included, passes here.
  matcher: ["/((?!_next/static/|_next/image|favicon.ico).*)"],
};
