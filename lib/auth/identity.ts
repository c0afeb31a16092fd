// Who is asking: a session cookie or a bearer token, checked the same way by the proxy
// (for every request) and by server actions (which check again, see requireRole).
import { verifyToken } from "../db/api-tokens";
import { isSessionRevoked, revokeSession } from "../db/revoked-sessions";
import { authConfig, sessionKeys } from "./config";
import type { Role } from "./request-rules";
import { verifySession } from "./session";

export interface Identity {
  role: Role;
  via: "session" | "token" | "open";
}

/** Without ADMIN_PASSWORD everyone may do everything, as an editor. */
export const OPEN_ACCESS: Identity = { role: "editor", via: "open" };

/** The token of an `Authorization: Bearer <token>` header, or null. */
export function bearerToken(authorization: string | null): string | null {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
  return m ? m[1] : null;
}

/**
 * The identity of a request from its session cookie and Authorization header; null when it
 * has neither, or what it has is not valid. An Authorization header, when present, decides.
 */
export async function identify(sessionCookie: string | undefined, authorization: string | null): Promise<Identity | null> {
  const config = authConfig();
  if (!config.enabled) return OPEN_ACCESS;
  if (authorization !== null) {
    const token = bearerToken(authorization);
    const found = token ? verifyToken(token) : null;
    return found ? { role: found.role, via: "token" } : null;
  }
  if (!sessionCookie) return null;
  const session = await verifySession(sessionCookie, sessionKeys(), config.maxAgeSeconds);
  // A signed-out session is refused even from a copy of its cookie.
  return session && !isSessionRevoked(session.id) ? { role: session.role, via: "session" } : null;
}

/** Signing out: the session of this cookie is refused from now on, copies of the cookie included. */
export async function endSession(sessionCookie: string | undefined): Promise<void> {
  const config = authConfig();
  if (!config.enabled || !sessionCookie) return;
  const session = await verifySession(sessionCookie, sessionKeys(), config.maxAgeSeconds);
  if (session) revokeSession(session.id, new Date(session.expiresAt * 1000));
}
