import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it, vi } from "vitest";

// Sign-in on: every route handler checks the role it declares itself, called straight (as Next
// calls it after routing a path the proxy read otherwise), with no proxy in front.
vi.hoisted(() => {
  process.env.ADMIN_PASSWORD = "handler-roles-admin";
  process.env.VIEWER_PASSWORD = "handler-roles-viewer";
});

import { requiredRole, isPublicPath } from "@/lib/auth/request-rules";
import { sessionKeys } from "@/lib/auth/config";
import { SESSION_COOKIE, signSession } from "@/lib/auth/session";
import { createToken } from "@/lib/db/api-tokens";
import { LOCAL_PEER } from "@/test/http";

const root = path.resolve(import.meta.dirname, "../..");
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

function files(dir: string): string[] {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.posix.join(dir, e.name);
    if (e.isDirectory()) return files(rel);
    return e.name === "route.ts" || (dir.startsWith("pages/") && /\.ts$/.test(e.name) && !e.name.endsWith(".test.ts")) ? [rel] : [];
  });
}

/** The path a route file serves; `[name]` segments get an id no agent has. */
const routePath = (file: string) =>
  file
    .replace(/^app/, "")
    .replace(/\/route\.ts$/, "")
    .replace(/^pages/, "")
    .replace(/\.ts$/, "")
    .replace(/\[[^\]]+\]/g, "999999");

const paramsOf = (file: string) => Object.fromEntries([...file.matchAll(/\[([^\]]+)\]/g)].map((m) => [m[1], "999999"]));

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

const handlers: { name: string; method: string; path: string; file: string; handler: Handler }[] = [];

async function send(h: (typeof handlers)[number], headers: Record<string, string>) {
  const req = new Request(`http://localhost${h.path}`, { method: h.method, headers: { ...LOCAL_PEER, ...headers } });
  const res = await h.handler(req, { params: Promise.resolve(paramsOf(h.file)) });
  const body = await res.text();
  return { status: res.status, code: body.startsWith("{") ? JSON.parse(body).error?.code : undefined };
}

let viewerToken: Record<string, string>;
let viewerSession: Record<string, string>;
beforeAll(async () => {
  for (const file of [...files("app/api"), ...files("pages/api")].sort()) {
    const mod = (await import(/* @vite-ignore */ path.join(root, file))) as Record<string, unknown>;
    for (const method of METHODS) {
      if (typeof mod[method] === "function") {
        handlers.push({ name: `${method} ${routePath(file)}`, method, path: routePath(file), file, handler: mod[method] as Handler });
      }
    }
  }
  viewerToken = { authorization: `Bearer ${createToken("handler roles viewer", "viewer").token}` };
  viewerSession = { cookie: `${SESSION_COOKIE}=${await signSession("viewer", sessionKeys(), 3600)}` };
});

describe("every route handler checks its role itself", () => {
  it("finds the handlers", () => {
    expect(handlers.length).toBeGreaterThan(50);
    expect(handlers.map((h) => h.name)).toContain("POST /api/agents");
    expect(handlers.map((h) => h.name)).toContain("POST /api/agents/999999/documents/search");
  });

  it("refuses a caller with no identity (401), but the public health check", async () => {
    const answered: string[] = [];
    for (const h of handlers) {
      // Public by the gate's own rule: it answers anonymous callers a bare ok (health/anonymous.test.ts).
      if (isPublicPath(h.path)) {
        answered.push(h.name);
        continue;
      }
      expect(await send(h, {}), h.name).toEqual({ status: 401, code: "unauthorized" });
      expect(await send(h, { authorization: "Bearer kbi_not-a-token" }), h.name).toEqual({ status: 401, code: "unauthorized" });
    }
    expect(answered).toEqual(["GET /api/health"]);
  });

  it("refuses a viewer where the proxy's rules need an editor, and lets one through where they need a viewer", async () => {
    for (const h of handlers.filter((h) => !isPublicPath(h.path))) {
      const need = requiredRole(h.method, h.path, false);
      for (const viewer of [viewerToken, viewerSession]) {
        const res = await send(h, viewer);
        if (need === "editor") expect(res, h.name).toEqual({ status: 403, code: "forbidden" });
        else expect([401, 403], `${h.name}: ${JSON.stringify(res)}`).not.toContain(res.status);
      }
    }
  });
});
