import { describe, expect, it } from "vitest";
import {
  accessSettings,
  decodedPath,
  isAllowedHost,
  isLoopbackHostname,
  isAllowedRequestOrigin,
  isPublicPath,
  requiredRole,
  roleAllows,
  roleRefusal,
  safeNextPath,
} from "./request-rules";

const defaults = accessSettings({ HOST: "127.0.0.1" });

describe("Host header", () => {
  it("accepts loopback names with any port and refuses other names (DNS rebinding)", () => {
    for (const h of ["localhost", "localhost:3000", "127.0.0.1:3100", "[::1]:3000", "LOCALHOST:80"]) {
      expect(isAllowedHost(h, defaults), h).toBe(true);
    }
    for (const h of [
      "evil.example",
      "evil.example:3000",
      "127.0.0.1.nip.io:3000",
      "localhost.evil.example",
      "10.0.0.5:3000",
      "",
      "a b",
      null,
    ]) {
      expect(isAllowedHost(h, defaults), String(h)).toBe(false);
    }
  });

  it("accepts the HOST setting and ALLOWED_HOSTS, with or without a port", () => {
    const s = accessSettings({ HOST: "kb.internal", ALLOWED_HOSTS: "kb.example.com, Proxy.example.com:8443" });
    expect(isAllowedHost("kb.internal:3000", s)).toBe(true);
    expect(isAllowedHost("kb.example.com", s)).toBe(true);
    expect(isAllowedHost("kb.example.com:9999", s)).toBe(true);
    expect(isAllowedHost("proxy.example.com:8443", s)).toBe(true);
    expect(isAllowedHost("proxy.example.com:8444", s)).toBe(false);
    expect(isAllowedHost("other.example.com", s)).toBe(false);
  });

  it("accepts IP literals only when HOST binds every address", () => {
    expect(isAllowedHost("192.168.1.5:3000", accessSettings({ HOST: "0.0.0.0" }))).toBe(true);
    expect(isAllowedHost("[fe80::1]:3000", accessSettings({ HOST: "::" }))).toBe(true);
    expect(isAllowedHost("evil.example:3000", accessSettings({ HOST: "0.0.0.0" }))).toBe(false);
    expect(isAllowedHost("192.168.1.6:3000", accessSettings({ HOST: "192.168.1.5" }))).toBe(false);
    expect(isAllowedHost("[::1]:3000", accessSettings({ HOST: "::1" }))).toBe(true);
  });
});

describe("this machine's names", () => {
  it("are localhost, *.localhost, 127.0.0.0/8 and [::1], and nothing that only starts like one", () => {
    for (const h of ["localhost", "LOCALHOST", "app.localhost", "localhost.", "127.0.0.1", "127.255.0.9", "[::1]"])
      expect(isLoopbackHostname(h), h).toBe(true);
    for (const h of ["localhost.evil.example", "127.0.0.1.nip.io", "128.0.0.1", "[::2]", "10.0.0.1", "evillocalhost", ""])
      expect(isLoopbackHostname(h), h).toBe(false);
    expect(isAllowedHost("app.localhost:3000", defaults)).toBe(true);
    expect(isAllowedHost("127.0.0.2:3000", defaults)).toBe(true);
  });
});

describe("the path as Next routes it", () => {
  it("decodes escapes a path may need, and refuses those of characters it never escapes, '/' and '\\'", () => {
    expect(decodedPath("/api/agents/7/documents")).toEqual({ pathname: "/api/agents/7/documents" });
    expect(decodedPath("/agents/7/documents/caf%C3%A9%20menu")).toEqual({ pathname: "/agents/7/documents/café menu" });
    for (const raw of ["/%61pi/agents", "/api/agents/%37", "/api/agents/7%2fask", "/api%5Cagents", "/%7Euser", "/a%2Db", "/a%2e"]) {
      expect(decodedPath(raw), raw).toHaveProperty("refusal");
    }
    expect(decodedPath("/a%E0%A4%A")).toEqual({ refusal: expect.stringContaining("percent-encoding") });
  });
});

describe("Origin of state-changing requests", () => {
  const check = (method: string, origin: string | null, host: string | null, referer: string | null = null, s = defaults) =>
    isAllowedRequestOrigin(method, { origin, referer, host }, s);

  it("allows the app's own origin and refuses other sites, 'null' and other schemes", () => {
    expect(check("POST", "http://127.0.0.1:3000", "127.0.0.1:3000")).toBe(true);
    expect(check("DELETE", "https://kb.example.com", "kb.example.com")).toBe(true);
    expect(check("POST", "https://kb.example.com", "kb.example.com:443")).toBe(true);
    expect(check("POST", "http://evil.example", "127.0.0.1:3000")).toBe(false);
    expect(check("POST", "http://127.0.0.1:3001", "127.0.0.1:3000")).toBe(false);
    expect(check("POST", "http://localhost:3000", "127.0.0.1:3000")).toBe(false);
    expect(check("PATCH", "null", "127.0.0.1:3000")).toBe(false);
    expect(check("POST", "file://", "127.0.0.1:3000")).toBe(false);
  });

  it("allows origins in ALLOWED_ORIGINS", () => {
    const s = accessSettings({ HOST: "127.0.0.1", ALLOWED_ORIGINS: "https://portal.example.com, http://localhost:5173/" });
    expect(check("POST", "https://portal.example.com", "127.0.0.1:3000", null, s)).toBe(true);
    expect(check("POST", "http://localhost:5173", "127.0.0.1:3000", null, s)).toBe(true);
    expect(check("POST", "https://portal.example.com.evil.example", "127.0.0.1:3000", null, s)).toBe(false);
  });

  it("falls back to the Referer, and allows requests with neither (scripts, curl)", () => {
    expect(check("POST", null, "127.0.0.1:3000", "http://evil.example/page")).toBe(false);
    expect(check("POST", null, "127.0.0.1:3000", "http://127.0.0.1:3000/agents/1")).toBe(true);
    expect(check("POST", null, "127.0.0.1:3000")).toBe(true);
  });

  it("never checks GET, HEAD or OPTIONS", () => {
    for (const m of ["GET", "HEAD", "OPTIONS", "get"]) expect(check(m, "http://evil.example", "127.0.0.1:3000")).toBe(true);
  });
});

describe("roles", () => {
  it("lets viewers read, search, inspect and run evaluations, and nothing else", () => {
    expect(requiredRole("GET", "/api/agents", false)).toBe("viewer");
    expect(requiredRole("POST", "/api/agents/3/documents/search", false)).toBe("viewer");
    expect(requiredRole("POST", "/agents/3/documents/search", false)).toBe("viewer");
    expect(requiredRole("POST", "/api/agents/3/inspect", false)).toBe("viewer");
    expect(requiredRole("POST", "/api/agents/3/evals", false)).toBe("viewer");
    expect(requiredRole("POST", "/api/agents/3/ask", false)).toBe("viewer");
    expect(requiredRole("POST", "/agents/3/ask", false)).toBe("viewer");
    expect(requiredRole("POST", "/api/agents", false)).toBe("editor");
    expect(requiredRole("POST", "/api/agents/3/documents", false)).toBe("editor");
    expect(requiredRole("POST", "/api/agents/3/documents/preview", false)).toBe("editor");
    expect(requiredRole("POST", "/api/agents/3/pairs", false)).toBe("editor");
    expect(requiredRole("POST", "/api/audit/repair", false)).toBe("editor");
    expect(requiredRole("POST", "/api/audit/rebuild", false)).toBe("editor");
    expect(requiredRole("PATCH", "/api/agents/3", false)).toBe("editor");
    expect(requiredRole("DELETE", "/api/agents/3/evals", false)).toBe("editor");
    expect(requiredRole("PUT", "/api/agents/3/documents/search", false)).toBe("editor");
  });

  it("leaves server actions on pages to the action, but never on route handler paths", () => {
    expect(requiredRole("POST", "/agents/3/settings", true)).toBe("action");
    expect(requiredRole("POST", "/api/agents", true)).toBe("editor");
    expect(requiredRole("POST", "/agents/3/documents/search", true)).toBe("viewer");
    expect(requiredRole("DELETE", "/agents/3", true)).toBe("editor");
    expect(requiredRole("POST", "/agents/3/settings", false)).toBe("editor");
  });

  it("orders the roles and says which one is needed", () => {
    expect(roleAllows("editor", "editor")).toBe(true);
    expect(roleAllows("editor", "viewer")).toBe(true);
    expect(roleAllows("viewer", "viewer")).toBe(true);
    expect(roleAllows("viewer", "editor")).toBe(false);
    expect(roleRefusal("editor", "viewer")).toBe("This needs the editor role; you are signed in as a viewer.");
  });

  it("keeps only sign-in, health and static assets public", () => {
    for (const p of ["/login", "/api/health", "/_next/static/chunks/a.js", "/favicon.ico"]) expect(isPublicPath(p), p).toBe(true);
    for (const p of ["/", "/login/x", "/api/health/x", "/api/agents", "/settings/tokens", "/_next/data/x.json"])
      expect(isPublicPath(p), p).toBe(false);
  });
});

describe("safeNextPath", () => {
  it("keeps paths on this app and drops everything that could leave it", () => {
    expect(safeNextPath("/agents/1/search?q=a%20b#top")).toBe("/agents/1/search?q=a%20b#top");
    for (const bad of [
      "//evil.example",
      "/\\evil.example",
      "/\t/evil.example",
      "https://evil.example",
      "evil",
      "",
      null,
      undefined,
      42,
      "/login",
      "/login?next=/x",
      "/.//evil.example",
      "/..//evil.example/x",
      "/a/../..//evil.example",
      "/./\u002f/evil.example",
    ]) {
      expect(safeNextPath(bad), String(bad)).toBe("/");
    }
  });
});
