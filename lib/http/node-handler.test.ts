import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "../core/errors";
import { serveFromNode } from "./node-handler";

type Ctx = { params: Promise<Record<string, string>> };

let base = "";
let server: http.Server;
let calls = 0;

beforeAll(async () => {
  const handle = serveFromNode<Ctx>(
    {
      POST: async (req, ctx) => {
        calls++;
        const body = await req.text();
        if (body === "fail") throw new AppError("invalid_request", "told to fail");
        if (body === "crash") throw new Error("a library's own words");
        const headers = new Headers({ "x-echo": req.headers.get("x-test") ?? "", "content-type": "application/json" });
        headers.append("set-cookie", "a=1; Path=/");
        headers.append("set-cookie", "b=2; Path=/");
        return new Response(JSON.stringify({ method: req.method, url: req.url, body, params: await ctx.params }), { status: 201, headers });
      },
    },
    { maxBodyBytes: 1024 },
  );
  // As Next's pages router calls it: the route's dynamic segments in req.query.
  server = http.createServer((req, res) => void handle(Object.assign(req, { query: { id: "7" } }), res));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe("web route handlers served from a Node request", () => {
  it("get the request's method, URL, headers, body and params, and their response goes out unchanged", async () => {
    const res = await fetch(`${base}/api/agents/7/documents/search?x=1`, {
      method: "POST",
      headers: { "x-test": "héllo".normalize(), "content-type": "application/json" },
      body: '{"query":"ü"}',
    });
    expect(res.status).toBe(201);
    expect(res.headers.get("x-echo")).toBe("héllo".normalize());
    expect(res.headers.getSetCookie()).toEqual(["a=1; Path=/", "b=2; Path=/"]);
    expect(await res.json()).toEqual({
      method: "POST",
      url: `${base}/api/agents/7/documents/search?x=1`,
      body: '{"query":"ü"}',
      params: { id: "7" },
    });
  });

  it("refuse a body past the limit with 413 request_too_large, without calling the handler", async () => {
    const before = calls;
    const res = await fetch(`${base}/x`, { method: "POST", body: "a".repeat(1025) });
    expect(res.status).toBe(413);
    expect((await res.json()).error.code).toBe("request_too_large");
    expect(calls).toBe(before);
    // A body of exactly the limit is read.
    expect((await fetch(`${base}/x`, { method: "POST", body: "a".repeat(1024) })).status).toBe(201);
  });

  it("answer 405 with Allow for a method the route does not have", async () => {
    const res = await fetch(`${base}/x`, { method: "DELETE" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
  });

  it("turn a thrown error into the API's error shape, keeping a library's words out of it", async () => {
    const failed = await fetch(`${base}/x`, { method: "POST", body: "fail" });
    expect(failed.status).toBe(422);
    expect(await failed.json()).toEqual({ error: { code: "invalid_request", message: "told to fail" } });
    const crashed = await fetch(`${base}/x`, { method: "POST", body: "crash" });
    expect(crashed.status).toBe(500);
    const body = await crashed.json();
    expect(body.error.code).toBe("internal");
    expect(JSON.stringify(body)).not.toContain("a library's own words");
  });
});
