import { describe, expect, it } from "vitest";
import { db } from "./client";
import { createToken, hashToken, listTokens, revokeToken, verifyToken } from "./api-tokens";

describe("API tokens", () => {
  it("stores only a hash, verifies the token with its role, and refuses it once revoked", () => {
    const { token, record } = createToken("CI gate", "viewer");
    expect(token).toMatch(/^kbi_[A-Za-z0-9_-]{43}$/);
    const stored = db().prepare("SELECT token_hash FROM api_tokens WHERE id = ?").get(record.id) as { token_hash: string };
    expect(stored.token_hash).toBe(hashToken(token));
    expect(JSON.stringify(db().prepare("SELECT * FROM api_tokens").all())).not.toContain(token.slice(4));

    expect(verifyToken(token)).toEqual({ id: record.id, role: "viewer" });
    expect(verifyToken(token.slice(0, -1) + (token.endsWith("A") ? "B" : "A"))).toBeNull();
    expect(verifyToken(token.slice(4))).toBeNull();

    expect(revokeToken(record.id)).toBe(true);
    expect(revokeToken(record.id)).toBe(false);
    expect(verifyToken(token)).toBeNull();
  });

  it("refuses a token from the moment it expires; one without an expiry keeps working", () => {
    const t0 = new Date("2030-01-01T00:00:00Z");
    const { token, record } = createToken("week", "viewer", t0, 7);
    expect(record.expires_at).toBe("2030-01-08T00:00:00.000Z");
    expect(verifyToken(token, new Date(t0.getTime() + 7 * 86_400_000 - 1))).toEqual({ id: record.id, role: "viewer" });
    expect(verifyToken(token, new Date(t0.getTime() + 7 * 86_400_000))).toBeNull();
    const forever = createToken("forever", "viewer", t0);
    expect(forever.record.expires_at).toBeNull();
    expect(verifyToken(forever.token, new Date("2099-01-01T00:00:00Z"))).not.toBeNull();
  });

  it("records when a token was last used, at most once a minute", () => {
    const { token, record } = createToken("Uploader", "editor");
    expect(listTokens().find((t) => t.id === record.id)?.last_used_at).toBeNull();
    const t1 = new Date("2030-01-01T10:00:00Z");
    verifyToken(token, t1);
    verifyToken(token, new Date(t1.getTime() + 30_000));
    expect(listTokens().find((t) => t.id === record.id)?.last_used_at).toBe(t1.toISOString());
    const t2 = new Date(t1.getTime() + 61_000);
    verifyToken(token, t2);
    expect(listTokens().find((t) => t.id === record.id)?.last_used_at).toBe(t2.toISOString());
  });

  it("lists active tokens first, newest first, without their hashes", () => {
    const a = createToken("first", "viewer").record;
    const b = createToken("second", "editor").record;
    revokeToken(b.id);
    const c = createToken("third", "viewer").record;
    const ids = listTokens().map((t) => t.id);
    expect(ids.indexOf(c.id)).toBeLessThan(ids.indexOf(a.id));
    expect(ids.indexOf(a.id)).toBeLessThan(ids.indexOf(b.id));
    expect(listTokens()[0]).not.toHaveProperty("token_hash");
  });
});
