// Sessions ended by signing out. A session cookie is signed, not stored, so a copy of it would
// stay valid until it expires; its id is kept here until then, and identify() refuses it.
import { db } from "./client";

/** Ends a session; rows past their expiry go at the same time. */
export function revokeSession(id: string, expiresAt: Date, now = new Date()): void {
  const conn = db();
  conn.prepare("DELETE FROM revoked_sessions WHERE expires_at <= ?").run(now.toISOString());
  conn.prepare("INSERT OR IGNORE INTO revoked_sessions (id, expires_at) VALUES (?, ?)").run(id, expiresAt.toISOString());
}

export function isSessionRevoked(id: string): boolean {
  return db().prepare("SELECT 1 FROM revoked_sessions WHERE id = ?").get(id) !== undefined;
}
