import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { guardedFetchSite, lookupFrom, rejection } from "@/test/guarded-fetch-site";
import { parseEnv } from "../env.mjs";
import { FetchFailed, fetchLimits, guardedFetch } from "./guarded";

// Fetching through the guard from an allowed host: pages, redirects, encodings and limits. What
// it refuses is in guarded-refusals.test.ts, which addresses count as public in addresses.test.ts.

// Set before anything reads env(), which parses once per process.
process.env.FETCH_ALLOW_HOSTS = " Docs.Test , wiki.test:8080,, ";
process.env.FETCH_MAX_REDIRECTS = "2";

const site = guardedFetchSite();

describe("fetchLimits and the FETCH_* settings", () => {
  it("reads the limits from the environment, the host list trimmed and lowercased", () => {
    expect(fetchLimits()).toEqual({
      maxBytes: 10 * 1024 * 1024,
      timeoutMs: 15_000,
      maxRedirects: 2,
      allowHosts: ["docs.test", "wiki.test:8080"],
    });
  });

  it("has the documented defaults and names a bad value", () => {
    expect(parseEnv({})).toMatchObject({
      FETCH_ALLOW_HOSTS: "",
      FETCH_MAX_PAGE_BYTES: 10485760,
      FETCH_TIMEOUT_MS: 15000,
      FETCH_MAX_REDIRECTS: 5,
      FETCH_MAX_PAGES: 5000,
      FETCH_MAX_SITEMAPS: 100,
      FETCH_MAX_SITEMAP_URLS: 50000,
      FETCH_CONCURRENCY: 4,
      FETCH_RATE_PER_S: 10,
    });
    expect(parseEnv({ FETCH_MAX_REDIRECTS: "0", FETCH_RATE_PER_S: "0" })).toMatchObject({ FETCH_MAX_REDIRECTS: 0, FETCH_RATE_PER_S: 0 });
    expect(() => parseEnv({ FETCH_CONCURRENCY: "0" })).toThrow(/FETCH_CONCURRENCY \(got "0"\)/);
    expect(() => parseEnv({ FETCH_RATE_PER_S: "-1" })).toThrow(/FETCH_RATE_PER_S/);
    expect(() => parseEnv({ FETCH_MAX_PAGE_BYTES: "lots" })).toThrow(/FETCH_MAX_PAGE_BYTES/);
  });
});

describe("guardedFetch against an allowed host", () => {
  it("returns a page: status, lower-case headers, body and the final URL", async () => {
    const page = await guardedFetch(`${site.base}/page`, { limits: site.limits() });
    expect(page.status).toBe(200);
    expect(page.url).toBe(`${site.base}/page`);
    expect(page.body.toString()).toBe("<h1>hello</h1>");
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(page.headers["x-fixture"]).toBe("yes");
    expect(page.headers["set-cookie"]).toBe("a=1, b=2");
    expect(site.seen).toEqual(["/page"]);
  });

  it("sends its user agent and accept-encoding, whatever the caller's headers say", async () => {
    const page = await guardedFetch(`${site.base}/echo`, {
      limits: site.limits(),
      headers: { "Accept-Encoding": "zstd", Host: "elsewhere.test", "X-Extra": "1" },
    });
    const sent = JSON.parse(page.body.toString());
    expect(sent).toMatchObject({
      "user-agent": "KB-Inspector-sync/1",
      "accept-encoding": "gzip, deflate, br",
      host: `127.0.0.1:${site.port}`,
      "x-extra": "1",
    });
  });

  it("passes conditional headers through and returns a 304 as a page", async () => {
    const first = await guardedFetch(`${site.base}/article`, { limits: site.limits() });
    expect(first.status).toBe(200);
    const again = await guardedFetch(`${site.base}/article`, {
      limits: site.limits(),
      headers: { "If-None-Match": first.headers.etag, "If-Modified-Since": first.headers["last-modified"] },
    });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(again.headers.etag).toBe('"v1"');
  });

  it.each(["/gzip", "/br", "/deflate", "/deflate-raw"])("decodes %s", async (path) => {
    const page = await guardedFetch(`${site.base}${path}`, { limits: site.limits() });
    expect(page.body.toString()).toBe("<p>packed</p>");
  });

  it("returns 404, 410 and 500 as pages: the caller decides", async () => {
    for (const status of [404, 410, 500]) {
      const page = await guardedFetch(`${site.base}/status/${status}`, { limits: site.limits() });
      expect(page.status).toBe(status);
      expect(page.body.toString()).toBe(`status ${status}`);
    }
  });

  it("follows a chain of redirects within the allowed host, relative and absolute", async () => {
    const page = await guardedFetch(`${site.base}/r/1`, { limits: site.limits() });
    expect(page).toMatchObject({ status: 200, url: `${site.base}/page?from=r3` });
    expect(page.body.toString()).toBe("landed");
    expect(site.seen).toEqual(["/r/1", "/r/2", "/r/3", "/page?from=r3"]);
  });

  it("fails after maxRedirects redirects, having followed exactly that many", async () => {
    const err = await rejection(guardedFetch(`${site.base}/loop/0`, { limits: site.limits({ maxRedirects: 3 }) }));
    expect(err).toBeInstanceOf(FetchFailed);
    expect(err.message).toMatch(/more than 3 redirects/);
    expect((err as FetchFailed).url).toBe(`${site.base}/loop/0`);
    expect(site.seen).toEqual(["/loop/0", "/loop/1", "/loop/2", "/loop/3"]);

    const none = await rejection(guardedFetch(`${site.base}/r/1`, { limits: site.limits({ maxRedirects: 0 }) }));
    expect(none.message).toMatch(/more than 0 redirects/);
  });

  it("drops credentials-bearing headers on a redirect to another origin, keeps the rest", async () => {
    // other.test stands for a public host: its loopback answer counts as public here.
    const page = await guardedFetch(`${site.base}/to-other-origin`, {
      limits: site.limits(),
      lookup: lookupFrom({ "other.test": ["127.0.0.1"] }),
      isPublic: () => true,
      headers: { Authorization: "Bearer secret", Cookie: "s=1", "If-None-Match": '"x"' },
    });
    expect(page.url).toBe(`http://other.test:${site.port}/echo`);
    const sent = JSON.parse(page.body.toString());
    expect(sent.authorization).toBeUndefined();
    expect(sent.cookie).toBeUndefined();
    expect(sent["if-none-match"]).toBe('"x"');
    expect(sent.host).toBe(`other.test:${site.port}`);
  });
});

describe("the Content-Encoding chain is bounded", () => {
  it("decodes two encodings and fails three or more with a clear reason", async () => {
    expect((await guardedFetch(`${site.base}/gzip-twice`, { limits: site.limits() })).body.toString()).toBe("<p>packed</p>");
    const three = await rejection(guardedFetch(`${site.base}/gzip-thrice`, { limits: site.limits() }));
    expect(three).toBeInstanceOf(FetchFailed);
    expect(three.message).toMatch(/answered with 3 content-encodings; at most 2 are decoded/);
    const chain = await rejection(guardedFetch(`${site.base}/gzip-chain`, { limits: site.limits() }));
    expect(chain).toBeInstanceOf(FetchFailed);
    expect(chain.message).toMatch(/answered with 3000 content-encodings/);
  });
});

describe("a sink takes the body as it is read", () => {
  it("hands each decoded chunk to the sink and keeps none", async () => {
    const chunks: Buffer[] = [];
    const page = await guardedFetch(`${site.base}/gzip`, { limits: site.limits(), sink: (c) => chunks.push(c) });
    expect(page.body.length).toBe(0);
    expect(Buffer.concat(chunks).toString()).toBe("<p>packed</p>");
  });
});

describe("guardedFetch fails within its limits", () => {
  it("fails a page declared over maxBytes without waiting for its body", async () => {
    const err = await rejection(guardedFetch(`${site.base}/big-declared`, { limits: site.limits({ maxBytes: 1024 }) }));
    expect(err).toBeInstanceOf(FetchFailed);
    expect(err.message).toMatch(/the page is over 1 KB/);
  });

  it("fails a page without Content-Length as soon as it passes maxBytes", async () => {
    const err = await rejection(guardedFetch(`${site.base}/big-streamed`, { limits: site.limits({ maxBytes: 1024 }) }));
    expect(err).toBeInstanceOf(FetchFailed);
    expect(err.message).toMatch(/the page is over 1 KB/);
  });

  it("counts maxBytes after decoding: a small gzip of a large page fails", async () => {
    const err = await rejection(guardedFetch(`${site.base}/bomb`, { limits: site.limits({ maxBytes: 64 * 1024 }) }));
    expect(err).toBeInstanceOf(FetchFailed);
    expect(err.message).toMatch(/the page is over 64 KB/);
    expect((await guardedFetch(`${site.base}/bomb`, { limits: site.limits({ maxBytes: 1024 * 1024 }) })).body.length).toBe(1024 * 1024);
  });

  it("fails a server that never answers after timeoutMs", async () => {
    const err = await rejection(guardedFetch(`${site.base}/hang`, { limits: site.limits({ timeoutMs: 200 }) }));
    expect(err).toBeInstanceOf(FetchFailed);
    expect(err.message).toMatch(/no answer within 0\.2 s/);
  });

  it("says a refused connection in words, without a stack", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const freePort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const err = await rejection(
      guardedFetch(`http://127.0.0.1:${freePort}/`, { limits: site.limits({ allowHosts: [`127.0.0.1:${freePort}`] }) }),
    );
    expect(err).toBeInstanceOf(FetchFailed);
    expect(err.message).toBe(`Could not fetch "http://127.0.0.1:${freePort}/": connection refused.`);
  });

  it("says when an allowed name does not resolve", async () => {
    const err = await rejection(
      guardedFetch(`http://docs.test:${site.port}/`, {
        limits: site.limits({ allowHosts: [`docs.test:${site.port}`] }),
        lookup: lookupFrom({}),
      }),
    );
    expect(err).toBeInstanceOf(FetchFailed);
    expect(err.message).toMatch(/docs\.test was not found/);
  });
});
