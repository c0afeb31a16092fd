import { createHash, timingSafeEqual } from "node:crypto";
import type { Role } from "./request-rules";

const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();

/** Compares hashes of equal length in constant time, so the time taken tells nothing. */
export const passwordMatches = (given: string, expected: string) => timingSafeEqual(digest(given), digest(expected));

/** The role a password signs in as; both passwords are always compared. */
export function roleForPassword(given: string, adminPassword: string, viewerPassword?: string): Role | null {
  const editor = passwordMatches(given, adminPassword);
  const viewer = viewerPassword !== undefined && passwordMatches(given, viewerPassword);
  return editor ? "editor" : viewer ? "viewer" : null;
}
