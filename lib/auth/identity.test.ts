import { beforeAll, describe, expect, it } from "vitest";

// Sign-in on for this file; env() is read lazily, after these are set.
process.env.ADMIN_PASSWORD = "admin-password-1";
process.env.VIEWER_PASSWORD = "viewer-password-1";
process.env.SESSION_MAX_AGE_HOURS = "1";

const { sessionKeys } = await import("./config");
const { identify, bearerToken, endSession } = await import("./identity");
const { signSession } = await import("./session");
const { createToken, revokeToken } = await import("../db/api-tokens");

describe("identify", () => {
  let editorCookie: string;
  beforeAll(async () => {
    editorCookie = await signSession("editor", sessionKeys(), 3600);
  });

  it("reads the role from a session cookie, and nothing from an expired or foreign one", async () => {
    expect(await identify(editorCookie, null)).toEqual({ role: "editor", via: "session" });
    const viewer = await signSession("viewer", sessionKeys(), 3600);
    expect(await identify(viewer, null)).toEqual({ role: "viewer", via: "session" });
    const old = await signSession("editor", sessionKeys(), 3600, Date.now() - 2 * 3600_000);
    expect(await identify(old, null)).toBeNull();
    expect(await identify(undefined, null)).toBeNull();
  });

  it("refuses a session once it is signed out, from any copy of its cookie, and no other session", async () => {
    const mine = await signSession("editor", sessionKeys(), 3600);
    const other = await signSession("editor", sessionKeys(), 3600);
    const copy = String(mine);
    expect(await identify(copy, null)).toEqual({ role: "editor", via: "session" });
    await endSession(mine);
    expect(await identify(copy, null)).toBeNull();
    expect(await identify(other, null)).toEqual({ role: "editor", via: "session" });
    await endSession("not-a-session"); // nothing to end, no error
  });

  it("reads the role from a bearer token, and lets an Authorization header decide over the cookie", async () => {
    const { token, record } = createToken("script", "viewer");
    expect(await identify(undefined, `Bearer ${token}`)).toEqual({ role: "viewer", via: "token" });
    expect(await identify(editorCookie, `bearer  ${token} `)).toEqual({ role: "viewer", via: "token" });
    expect(await identify(editorCookie, "Bearer kbi_unknown")).toBeNull();
    expect(await identify(editorCookie, "Basic YWRtaW46eA==")).toBeNull();
    revokeToken(record.id);
    expect(await identify(undefined, `Bearer ${token}`)).toBeNull();
  });

  it("parses the Authorization header strictly", () => {
    expect(bearerToken("Bearer abc")).toBe("abc");
    expect(bearerToken("Bearer")).toBeNull();
    expect(bearerToken("Bearer a b")).toBeNull();
    expect(bearerToken(null)).toBeNull();
  });
});
