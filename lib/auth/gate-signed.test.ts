import { describe, expect, it } from "vitest";

// Sign-in on for this file; env() is read lazily, after these are set.
process.env.ADMIN_PASSWORD = "admin-password-1";

const { gateRequest } = await import("./gate");
const { sessionKeys } = await import("./config");
const { signSession, SESSION_COOKIE } = await import("./session");

const get = (path: string, cookie?: string, headers: Record<string, string> = {}) =>
  gateRequest(new Request(`http://127.0.0.1:3000${path}`, { headers: { host: "127.0.0.1:3000", ...(cookie ? { cookie } : {}), ...headers } }));

describe("the gate with sign-in on", () => {
  it("treats a malformed session cookie as signed out instead of failing", async () => {
    for (const value of ["%E0%A4%A", "%", "a%zz", "not.a.jwt", "x".repeat(5000)]) {
      const page = await get("/agents/1", `${SESSION_COOKIE}=${value}`);
      expect(page?.status, value).toBe(307);
      expect(page?.headers.get("location")).toContain("/login");
      const api = await get("/api/agents", `${SESSION_COOKIE}=${value}`);
      expect(api?.status, value).toBe(401);
    }
    const valid = await signSession("editor", sessionKeys(), 3600);
    expect(await get("/api/agents", `${SESSION_COOKIE}=${valid}`)).toBeNull();
  });

  it("needs no peer stamp and refuses no forwarded request: sign-in decides", async () => {
    const valid = await signSession("editor", sessionKeys(), 3600);
    expect(await get("/api/agents", `${SESSION_COOKIE}=${valid}`, { "x-forwarded-for": "198.51.100.7" })).toBeNull();
  });
});
