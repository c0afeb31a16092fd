import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { config } from "../../proxy";

// Every API route either passes through the proxy, which runs the gate (lib/auth/gate.ts), or is
// left out of the proxy's matcher and gates each of its handlers itself (gatedRoute, or
// withAgent's `gated: true`). A route left out that does not gate itself would be open; a route
// that gates itself behind the proxy pays the gate twice. This reads both from the source.

const root = path.resolve(import.meta.dirname, "../..");

function files(dir: string): string[] {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === "__tests__" ? [] : files(rel);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith(".test.ts") ? [rel] : [];
  });
}

/** A request path for a route file: `[id]` segments get a sample value. */
function samplePath(file: string): string {
  const rel = file.startsWith("app/")
    ? file.replace(/^app/, "").replace(/\/route\.ts$/, "")
    : file
        .replace(/^pages/, "")
        .replace(/\.ts$/, "")
        .replace(/\/index$/, "");
  return rel.replace(/\[[^\]]+\]/g, "7");
}

/**
 * Each exported handler of a route file, and whether it gates the request itself. A pages route's
 * default export serves its named handlers (serveFromNode), so those are what is read.
 */
function handlers(file: string): { name: string; gated: boolean }[] {
  const source = fs.readFileSync(path.join(root, file), "utf8");
  return source
    .split(/^export /m)
    .slice(1)
    .flatMap((part) => {
      const m = /^(?:const|async function|function)\s+(GET|POST|PUT|PATCH|DELETE)\b/.exec(part);
      return m ? [{ name: m[1], gated: /gatedRoute\(|gated: true/.test(part) }] : [];
    });
}

const matcher = new RegExp(`^${config.matcher[0]}$`);
const routes = [...files("app/api"), ...files("pages/api")].filter((f) => f.startsWith("pages/") || f.endsWith("/route.ts"));

describe("which routes the proxy gates and which gate themselves", () => {
  it("reads the routes", () => {
    expect(routes.length).toBeGreaterThan(30);
    expect(routes).toContain("app/api/agents/[id]/documents/route.ts");
    expect(routes).toContain("pages/api/agents/[id]/documents/search.ts");
  });

  it("leaves out of the proxy exactly the routes whose every handler gates itself", () => {
    const table = routes.map((f) => ({ file: f, path: samplePath(f), proxied: matcher.test(samplePath(f)), handlers: handlers(f) }));
    for (const r of table) expect(r.handlers.length, `${r.file} exports a handler`).toBeGreaterThan(0);
    const selfGated = table.filter((r) => r.handlers.every((h) => h.gated)).map((r) => r.file);
    const partly = table.filter((r) => r.handlers.some((h) => h.gated) && !r.handlers.every((h) => h.gated)).map((r) => r.file);
    expect(partly).toEqual([]);
    expect(
      table
        .filter((r) => !r.proxied)
        .map((r) => r.file)
        .sort(),
    ).toEqual(selfGated.sort());
    // The list, stated: the upload routes and an agent's import (Next would buffer their bodies
    // before a proxy answers), the preview, and the agent's search (the proxy's cost per call).
    expect(selfGated.sort()).toEqual(
      [
        "app/api/agents/[id]/documents/preview/route.ts",
        "app/api/agents/[id]/documents/route.ts",
        "app/api/agents/[id]/uploads/[jobId]/route.ts",
        "app/api/agents/[id]/uploads/route.ts",
        "app/api/agents/import/route.ts",
        "pages/api/agents/[id]/documents/search.ts",
      ].sort(),
    );
  });

  it("leaves out the search's path without /api, which is rewritten to the gated one, and nothing near it", () => {
    expect(matcher.test("/agents/7/documents/search")).toBe(false);
    expect(matcher.test("/agents/7/ask")).toBe(true);
    expect(matcher.test("/api/agents/7/documents/search/x")).toBe(true);
    expect(matcher.test("/api/agents/7/documents/7")).toBe(true);
    expect(matcher.test("/api/agents/7/uploads/7/x")).toBe(true);
    expect(matcher.test("/agents/7")).toBe(true);
  });
});
