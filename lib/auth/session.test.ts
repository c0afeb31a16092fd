import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { deriveSessionKeys, loadSessionSalt, signSession, verifySession } from "./session";

const salt = Buffer.alloc(32, 7);
const keys = deriveSessionKeys(salt, "admin-password-1", "viewer-password-1");
const HOUR = 3600;
const t0 = Date.parse("2030-01-01T00:00:00Z");

describe("session cookie", () => {
  it("round-trips the role and its times", async () => {
    const token = await signSession("viewer", keys, 12 * HOUR, t0);
    expect(await verifySession(token, keys, 12 * HOUR, t0 + 1000)).toEqual({
      id: expect.any(String),
      role: "viewer",
      issuedAt: t0 / 1000,
      expiresAt: t0 / 1000 + 12 * HOUR,
    });
    // Each sign-in has its own id, so signing out can end that one and no other.
    const ids = await Promise.all(
      [1, 2].map(async () => (await verifySession(await signSession("viewer", keys, HOUR, t0), keys, HOUR, t0))!.id),
    );
    expect(ids[0]).not.toBe(ids[1]);
    expect((await verifySession(await signSession("editor", keys, HOUR, t0), keys, HOUR, t0))?.role).toBe("editor");
  });

  it("expires after the maximum age, also when the maximum was lowered since", async () => {
    const token = await signSession("editor", keys, 12 * HOUR, t0);
    expect(await verifySession(token, keys, 12 * HOUR, t0 + 12 * HOUR * 1000 - 1000)).not.toBeNull();
    expect(await verifySession(token, keys, 12 * HOUR, t0 + 12 * HOUR * 1000 + 1000)).toBeNull();
    expect(await verifySession(token, keys, HOUR, t0 + 2 * HOUR * 1000)).toBeNull();
  });

  it("is invalid once a password or the salt changes", async () => {
    const editor = await signSession("editor", keys, HOUR, t0);
    const viewer = await signSession("viewer", keys, HOUR, t0);
    const newAdmin = deriveSessionKeys(salt, "admin-password-2", "viewer-password-1");
    expect(await verifySession(editor, newAdmin, HOUR, t0)).toBeNull();
    expect(await verifySession(viewer, newAdmin, HOUR, t0)).toBeNull();
    const newViewer = deriveSessionKeys(salt, "admin-password-1", "viewer-password-2");
    expect(await verifySession(editor, newViewer, HOUR, t0)).not.toBeNull();
    expect(await verifySession(viewer, newViewer, HOUR, t0)).toBeNull();
    expect(await verifySession(editor, deriveSessionKeys(Buffer.alloc(32, 8), "admin-password-1"), HOUR, t0)).toBeNull();
    expect(await verifySession(viewer, deriveSessionKeys(salt, "admin-password-1"), HOUR, t0)).toBeNull();
  });

  it("refuses tampered cookies: a viewer's signature with an editor claim, unsigned tokens, garbage", async () => {
    const forged = await new SignJWT({ role: "editor" })
      .setProtectedHeader({ alg: "HS256", kid: "viewer" })
      .setIssuedAt(t0 / 1000)
      .setExpirationTime(t0 / 1000 + HOUR)
      .sign(keys.viewer!);
    expect(await verifySession(forged, keys, HOUR, t0)).toBeNull();
    const viewer = await signSession("viewer", keys, HOUR, t0);
    const [h, , s] = viewer.split(".");
    const body = Buffer.from(JSON.stringify({ role: "editor", iat: t0 / 1000, exp: t0 / 1000 + HOUR })).toString("base64url");
    expect(await verifySession(`${h}.${body}.${s}`, keys, HOUR, t0)).toBeNull();
    const none = `${Buffer.from('{"alg":"none","kid":"editor"}').toString("base64url")}.${body}.`;
    expect(await verifySession(none, keys, HOUR, t0)).toBeNull();
    expect(await verifySession("not-a-jwt", keys, HOUR, t0)).toBeNull();
  });

  it("keeps one salt per data directory, created once", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kb-salt-"));
    const first = loadSessionSalt(dir);
    expect(first).toHaveLength(32);
    expect(loadSessionSalt(dir).equals(first)).toBe(true);
    expect(fs.statSync(path.join(dir, "session-salt")).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(dir)).toEqual(["session-salt"]);
    expect(loadSessionSalt(fs.mkdtempSync(path.join(os.tmpdir(), "kb-salt-"))).equals(first)).toBe(false);
  });
});
