import { env } from "../env.mjs";
import { accessSettings, type AccessSettings } from "./request-rules";
import { deriveSessionKeys, loadSessionSalt, type SessionKeys } from "./session";
import { authState } from "./state";

export interface AuthConfig {
  /** Sign-in is required: ADMIN_PASSWORD is set. */
  enabled: boolean;
  adminPassword?: string;
  viewerPassword?: string;
  maxAgeSeconds: number;
  access: AccessSettings;
  /** TRUST_PROXY: the client is X-Forwarded-For's last entry, written by a proxy the operator runs. */
  trustProxy: boolean;
}

export function authConfig(): AuthConfig {
  const e = env();
  return {
    enabled: Boolean(e.ADMIN_PASSWORD),
    adminPassword: e.ADMIN_PASSWORD,
    viewerPassword: e.VIEWER_PASSWORD,
    maxAgeSeconds: Math.round(e.SESSION_MAX_AGE_HOURS * 3600),
    access: accessSettings(e),
    trustProxy: e.TRUST_PROXY,
  };
}

/** The session signing keys; only called when sign-in is on. */
export function sessionKeys(): SessionKeys {
  const e = env();
  const adminPassword = e.ADMIN_PASSWORD;
  if (!adminPassword) throw new Error("sign-in is off: ADMIN_PASSWORD is not set");
  // Derived once per process: the proxy and the pages share them.
  const state = authState();
  return (state.sessionKeys ??= deriveSessionKeys(loadSessionSalt(e.DATA_DIR), adminPassword, e.VIEWER_PASSWORD));
}
