import "server-only";
import { cookies, headers } from "next/headers";
import { AppError } from "../core/errors";
import { authConfig } from "./config";
import { identify, OPEN_ACCESS, type Identity } from "./identity";
import { roleAllows, roleRefusal, type Role } from "./request-rules";
import { SESSION_COOKIE } from "./session";

export type { Identity } from "./identity";
export type { Role } from "./request-rules";

export const authEnabled = () => authConfig().enabled;

/** The identity of the request being served, or null when it is not signed in. */
export async function currentIdentity(): Promise<Identity | null> {
  // Sign-in off: no request data is needed (so lib code and tests can call actions directly).
  if (!authConfig().enabled) return OPEN_ACCESS;
  const [c, h] = await Promise.all([cookies(), headers()]);
  return identify(c.get(SESSION_COOKIE)?.value, h.get("authorization"));
}

/**
 * The first line of every state-changing server action: actions are POSTs to any page, so
 * each one checks the caller itself rather than trusting the proxy's path rules.
 */
export async function requireRole(role: Role): Promise<Identity> {
  const who = await currentIdentity();
  if (!who) throw new AppError("unauthorized", "Sign in first: the session is missing or has expired.");
  if (!roleAllows(who.role, role)) throw new AppError("forbidden", roleRefusal(role, who.role));
  return who;
}
