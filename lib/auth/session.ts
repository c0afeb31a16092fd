// The session cookie: a JWT signed (HS256, with jose) by a key derived from the passwords and a
// random salt kept in DATA_DIR. A new ADMIN_PASSWORD gives new keys, which signs everyone out;
// a new VIEWER_PASSWORD signs the viewers out.
import { hkdfSync, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { SignJWT, jwtVerify, type JWTHeaderParameters } from "jose";
import type { Role } from "./request-rules";

export const SESSION_COOKIE = "kb_session";

export interface SessionKeys {
  editor: Uint8Array;
  /** null when no VIEWER_PASSWORD is set: no viewer session can be valid. */
  viewer: Uint8Array | null;
}

export interface Session {
  /** The cookie's own id (jti): signing out records it as ended (lib/db/revoked-sessions.ts). */
  id: string;
  role: Role;
  /** Seconds since the epoch. */
  issuedAt: number;
  expiresAt: number;
}

const SALT_FILE = "session-salt";

/** The salt in DATA_DIR, created on first use; two processes racing get the same one. */
export function loadSessionSalt(dataDir: string): Buffer {
  const file = path.join(dataDir, SALT_FILE);
  try {
    return fs.readFileSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`;
  fs.writeFileSync(tmp, randomBytes(32), { mode: 0o600 });
  try {
    fs.linkSync(tmp, file); // fails if another process created it first; then that one is used
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  return fs.readFileSync(file);
}

const derive = (secret: string, salt: Buffer, purpose: string) =>
  new Uint8Array(hkdfSync("sha256", secret, salt, `kb-inspector session ${purpose}`, 32));

export function deriveSessionKeys(salt: Buffer, adminPassword: string, viewerPassword?: string): SessionKeys {
  return {
    editor: derive(adminPassword, salt, "editor"),
    viewer: viewerPassword ? derive(`${adminPassword}\0${viewerPassword}`, salt, "viewer") : null,
  };
}

const keyFor = (keys: SessionKeys, role: unknown) => (role === "editor" ? keys.editor : role === "viewer" ? keys.viewer : null);

export async function signSession(role: Role, keys: SessionKeys, maxAgeSeconds: number, now = Date.now()): Promise<string> {
  const key = keyFor(keys, role);
  if (!key) throw new Error(`no key for the ${role} role`);
  const iat = Math.floor(now / 1000);
  return new SignJWT({ role })
    .setProtectedHeader({ alg: "HS256", kid: role })
    .setJti(randomBytes(16).toString("base64url"))
    .setIssuedAt(iat)
    .setExpirationTime(iat + Math.max(1, Math.round(maxAgeSeconds)))
    .sign(key);
}

/** The session a cookie holds, or null when it is forged, from old passwords, or expired. */
export async function verifySession(token: string, keys: SessionKeys, maxAgeSeconds: number, now = Date.now()): Promise<Session | null> {
  try {
    const { payload, protectedHeader } = await jwtVerify(
      token,
      (header: JWTHeaderParameters) => {
        const key = keyFor(keys, header.kid);
        if (!key) throw new Error("unknown key");
        return key;
      },
      {
        algorithms: ["HS256"],
        currentDate: new Date(now),
        // Also bounds sessions issued under a longer SESSION_MAX_AGE_HOURS than today's.
        maxTokenAge: Math.max(1, Math.round(maxAgeSeconds)),
        requiredClaims: ["iat", "exp", "jti"],
      },
    );
    if (payload.role !== protectedHeader.kid) return null;
    return { id: payload.jti!, role: payload.role as Role, issuedAt: payload.iat!, expiresAt: payload.exp! };
  } catch {
    return null;
  }
}
