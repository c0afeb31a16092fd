import { describe, expect, it, vi } from "vitest";

// Sign-in on for this file; env() is read lazily, after these are set.
process.env.ADMIN_PASSWORD = "admin-password-1";
process.env.VIEWER_PASSWORD = "viewer-password-1";
delete process.env.TRUST_PROXY;

const { gateRequest } = await import("./gate");
const { sessionKeys } = await import("./config");
const { signSession, SESSION_COOKIE } = await import("./session");
const { PEER_HEADER, peerStamp } = await import("./peer");
const { authState } = await import("./state");

const send = (method: string, path: string, headers: Record<string, string>) =>
  gateRequest(new Request(`http://127.0.0.1:3000${path}`, { method, headers: { host: "127.0.0.1:3000", ...headers } }));

const get = (path: string, cookie?: string, headers: Record<string, string> = {}) =>
  gateRequest(
    new Request(`http://127.0.0.1:3000${path}`, { headers: { host: "127.0.0.1:3000", ...(cookie ? { cookie } : {}), ...headers } }),
  );

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

  it("classifies a path as Next routes it, and refuses escapes that would route it otherwise", async () => {
    const viewer = { cookie: `${SESSION_COOKIE}=${await signSession("viewer", sessionKeys(), 3600)}` };
    // "/%61pi/agents" reaches POST /api/agents; read raw, it looked like a page's server action.
    for (const path of [
      "/%61pi/agents",
      "/api/%61gents",
      "/api/agents/7%2Fask",
      "/api/agents/%37/ask",
      "/api%5Cagents",
      "/api/agents/%E0%A4%A",
    ]) {
      const res = await send("POST", path, { ...viewer, "next-action": "abc" });
      expect(res?.status, path).toBe(400);
      const { error } = await res!.json();
      expect(error.code).toBe("invalid_path");
      expect(error.message).toMatch(/path/);
    }
    // Other escapes are decoded before the path is classified: this one is a route handler, not a page.
    const spaced = await send("GET", "/api/agents/7/%20", {});
    expect(spaced?.status).toBe(401);
    expect(await send("POST", "/api/agents/7/ask", viewer)).toBeNull();
    expect((await send("POST", "/api/agents", viewer))?.status).toBe(403);
  });

  it("warns once when a proxy forwards requests and TRUST_PROXY is off, since its clients share one sign-in count", async () => {
    authState().untrustedProxyWarned = false;
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const direct = { [PEER_HEADER]: peerStamp({ address: "127.0.0.1", forwarded: [] }) };
      const proxied = { [PEER_HEADER]: peerStamp({ address: "127.0.0.1", forwarded: ["x-real-ip"] }), "x-real-ip": "198.51.100.7" };
      await send("GET", "/login", direct);
      expect(warn).not.toHaveBeenCalled();
      await send("GET", "/login", proxied);
      await send("GET", "/api/agents", proxied);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0][0])).toMatch(/x-real-ip.*TRUST_PROXY=1/s);
    } finally {
      warn.mockRestore();
    }
  });
});
