// Bearer tokens for scripts and CI: shown once when created, only their sha256 is stored.
import { createHash, randomBytes } from "node:crypto";
import type { Role } from "../core/roles";
import { forbidden } from "../core/errors";
import { TOKEN_EXPIRY_DAYS } from "../validations/token";
import { db } from "./client";

export interface ApiToken {
  id: number;
  name: string;
  role: Role;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  /** After this the token is refused; null: it does not expire. */
  expires_at: string | null;
}

export const TOKEN_PREFIX = "kbi_";
/** last_used_at is written at most this often per token, not on every request. */
const TOUCH_EVERY_MS = 60_000;

/** 32 random bytes carry enough entropy that a plain sha256 suffices (no slow hash needed). */
export const hashToken = (token: string) => createHash("sha256").update(token, "utf8").digest("hex");

/** The token a request presents, as the token that mints another (role and expiry are what bound it). */
export type TokenIssuer = Pick<ApiToken, "role" | "expires_at">;

const DAY_MS = 86_400_000;
const utc = (iso: string) => iso.replace("T", " ").replace(/:\d\d\.\d+Z$/, " UTC");

/**
 * Why `issuer` may not mint a token of `role` expiring at `expiresAt` (null: never), or null when it may:
 * a token never mints a higher role than its own, nor one that outlives it (else a short expiry limits nothing).
 */
export function grantRefusal(issuer: TokenIssuer, role: Role, expiresAt: string | null, now = new Date()): string | null {
  if (issuer.role === "viewer" && role === "editor") return "A viewer token cannot create an editor token.";
  if (issuer.expires_at === null || (expiresAt !== null && expiresAt <= issuer.expires_at)) return null;
  const left = Date.parse(issuer.expires_at) - now.getTime();
  const fits = TOKEN_EXPIRY_DAYS.filter((d) => d * DAY_MS <= left).at(-1);
  const pick = fits ? `pick ${fits} days or fewer` : "no expiry on offer is that short";
  return `This token expires at ${utc(issuer.expires_at)}, so a token it creates must expire by then: ${pick}, or sign in to create a longer-lived one.`;
}

/** A new token; with `issuer` (the token of the request creating it), refused with 403 when grantRefusal says why. */
export function createToken(
  name: string,
  role: Role,
  now = new Date(),
  expiresInDays: number | null = null,
  issuer: TokenIssuer | null = null,
): { token: string; record: ApiToken } {
  const token = TOKEN_PREFIX + randomBytes(32).toString("base64url");
  const expiresAt = expiresInDays === null ? null : new Date(now.getTime() + expiresInDays * DAY_MS).toISOString();
  const refusal = issuer && grantRefusal(issuer, role, expiresAt, now);
  if (refusal) throw forbidden(refusal);
  const { lastInsertRowid } = db()
    .prepare("INSERT INTO api_tokens (name, role, token_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?)")
    .run(name, role, hashToken(token), now.toISOString(), expiresAt);
  return { token, record: getToken(Number(lastInsertRowid))! };
}

const COLUMNS = "id, name, role, created_at, last_used_at, revoked_at, expires_at";

export function getToken(id: number): ApiToken | undefined {
  return db().prepare(`SELECT ${COLUMNS} FROM api_tokens WHERE id = ?`).get(id) as ApiToken | undefined;
}

/** The token's record when it is known, not revoked and not expired (without recording a use). */
export function activeToken(token: string, now = new Date()): ApiToken | undefined {
  return db()
    .prepare(`SELECT ${COLUMNS} FROM api_tokens WHERE token_hash = ? AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)`)
    .get(hashToken(token), now.toISOString()) as ApiToken | undefined;
}

/** Active tokens first, newest first. */
export function listTokens(): ApiToken[] {
  return db().prepare(`SELECT ${COLUMNS} FROM api_tokens ORDER BY revoked_at IS NOT NULL, id DESC`).all() as ApiToken[];
}

/** Revokes a token; false when there is no such active token. */
export function revokeToken(id: number, now = new Date()): boolean {
  return db().prepare("UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL").run(now.toISOString(), id).changes === 1;
}

/** The token's id and role when it is known, not revoked and not expired; records when it was last used. */
export function verifyToken(token: string, now = new Date()): { id: number; role: Role } | null {
  if (!token.startsWith(TOKEN_PREFIX)) return null;
  const row = db()
    .prepare(
      "SELECT id, role, last_used_at FROM api_tokens WHERE token_hash = ? AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)",
    )
    .get(hashToken(token), now.toISOString()) as { id: number; role: Role; last_used_at: string | null } | undefined;
  if (!row) return null;
  if (!row.last_used_at || now.getTime() - Date.parse(row.last_used_at) >= TOUCH_EVERY_MS) {
    db().prepare("UPDATE api_tokens SET last_used_at = ? WHERE id = ?").run(now.toISOString(), row.id);
  }
  return { id: row.id, role: row.role };
}
