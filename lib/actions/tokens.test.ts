import { beforeEach, describe, expect, it, vi } from "vitest";

// Sign-in on for this file; env() is read lazily, after these are set.
vi.hoisted(() => {
  process.env.ADMIN_PASSWORD = "tokens-admin-password";
  process.env.VIEWER_PASSWORD = "tokens-viewer-password";
});

// The request scope Next gives a server action: the session cookie and Authorization header the test sets.
const request = vi.hoisted(() => ({ cookie: undefined as string | undefined, authorization: null as string | null }));
vi.mock("next/headers", () => ({
  cookies: async () => ({ get: () => (request.cookie ? { value: request.cookie } : undefined) }),
  headers: async () => new Headers(request.authorization ? { authorization: request.authorization } : {}),
}));
// Outside a Next server there is no page cache to revalidate.
vi.mock("next/cache", () => ({ revalidatePath: () => {} }));

import { createToken, grantRefusal, listTokens, verifyToken } from "@/lib/db/api-tokens";
import { sessionKeys } from "@/lib/auth/config";
import { signSession } from "@/lib/auth/session";
import { createTokenAction } from "./tokens";

const DAY = 86_400_000;
const form = (fields: Record<string, string>) => {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  return f;
};
const create = (fields: Record<string, string>) => createTokenAction({}, form(fields));
const asToken = (token: string) => {
  request.cookie = undefined;
  request.authorization = `Bearer ${token}`;
};

beforeEach(() => {
  request.cookie = undefined;
  request.authorization = null;
});

describe("creating a token with a token", () => {
  it("refuses a token that outlives the one creating it, naming the latest expiry allowed, and creates nothing", async () => {
    // An editor token with 30 days left (made 60 days ago for 90).
    const parent = createToken("deploy", "editor", new Date(Date.now() - 60 * DAY), 90);
    asToken(parent.token);
    const before = listTokens().length;
    for (const expires_in_days of ["never", "30", "365"]) {
      const state = await create({ name: `child ${expires_in_days}`, role: "editor", expires_in_days });
      expect(state.token).toBeUndefined();
      const latest = parent.record.expires_at!.replace("T", " ").slice(0, 16);
      expect(state.message).toBe(
        `This token expires at ${latest} UTC, so a token it creates must expire by then: pick 7 days or fewer, or sign in to create a longer-lived one.`,
      );
      expect(state.errors?.expires_in_days).toEqual([state.message]);
      expect(state.values).toMatchObject({ expires_in_days });
    }
    expect(listTokens()).toHaveLength(before);

    const ok = await create({ name: "child week", role: "editor", expires_in_days: "7" });
    expect(ok.token).toMatch(/^kbi_/);
    expect(verifyToken(ok.token!)).toMatchObject({ role: "editor" });
  });

  it("says so when no expiry on offer is short enough", async () => {
    const parent = createToken("short", "editor", new Date(Date.now() - 5 * DAY), 7);
    asToken(parent.token);
    const state = await create({ name: "child", role: "viewer", expires_in_days: "7" });
    expect(state.token).toBeUndefined();
    expect(state.message).toMatch(
      /^This token expires at .* UTC, so a token it creates must expire by then: no expiry on offer is that short, or sign in/,
    );
  });

  it("lets a token that never expires create any token of its role or below", async () => {
    asToken(createToken("forever", "editor").token);
    for (const role of ["editor", "viewer"]) expect((await create({ name: role, role, expires_in_days: "never" })).token).toMatch(/^kbi_/);
  });

  it("never mints a higher role than the issuer's own", () => {
    expect(grantRefusal({ role: "viewer", expires_at: null }, "editor", null)).toBe("A viewer token cannot create an editor token.");
    expect(() => createToken("up", "editor", new Date(), null, { role: "viewer", expires_at: null })).toThrow(
      /viewer token cannot create an editor token/,
    );
    expect(grantRefusal({ role: "viewer", expires_at: null }, "viewer", null)).toBeNull();
  });

  it("keeps a signed-in editor free to create a token that never expires", async () => {
    request.cookie = await signSession("editor", sessionKeys(), 3600);
    const state = await create({ name: "from the page", role: "editor", expires_in_days: "never" });
    expect(state.token).toMatch(/^kbi_/);
    expect(listTokens().find((t) => t.name === "from the page")?.expires_at).toBeNull();
  });
});
