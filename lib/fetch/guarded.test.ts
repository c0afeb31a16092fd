import http from "node:http";
import type { LookupAddress } from "node:dns";
import type { AddressInfo } from "node:net";
import zlib from "node:zlib";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { parseEnv } from "../env.mjs";
import { FetchFailed, FetchRefused, fetchLimits, guardedFetch, isPublicAddress, pinnedLookup, pinnedRequestOptions, type FetchLimits, type Lookup } from "./guarded";

// Every request these tests make goes to the fixture server on 127.0.0.1; private addresses
// elsewhere are only ever strings handed to isPublicAddress or answers of an injected lookup.
// Set before anything reads env(), which parses once per process.
process.env.FETCH_ALLOW_HOSTS = " Docs.Test , wiki.test:8080,, ";
process.env.FETCH_MAX_REDIRECTS = "2";

let server: http.Server;
let port = 0;
let base = "";
/** Paths the fixture server was asked for, in order. */
const seen: string[] = [];

const gzipped = zlib.gzipSync("<p>packed</p>");
const bomb = zlib.gzipSync(Buffer.alloc(1024 * 1024));
const gzipTwice = zlib.gzipSync(zlib.gzipSync("<p>packed</p>"));
const gzipThrice = zlib.gzipSync(gzipTwice);

function route(req: http.IncomingMessage, res: http.ServerResponse) {
  const path = req.url ?? "/";
  seen.push(path);
  const loop = /^\/loop\/(\d+)$/.exec(path);
  if (loop) return res.writeHead(302, { location: `/loop/${Number(loop[1]) + 1}` }).end();
  const status = /^\/status\/(\d+)$/.exec(path);
  if (status) return res.writeHead(Number(status[1]), { "content-type": "text/plain" }).end(`status ${status[1]}`);
  switch (path) {
    case "/page":
      return res.writeHead(200, { "content-type": "text/html; charset=utf-8", "X-Fixture": "yes", "set-cookie": ["a=1", "b=2"] }).end("<h1>hello</h1>");
    case "/article":
      if (req.headers["if-none-match"] === '"v1"' && req.headers["if-modified-since"] === "Tue, 01 Jul 2025 00:00:00 GMT") {
        return res.writeHead(304, { etag: '"v1"' }).end();
      }
      return res.writeHead(200, { etag: '"v1"', "last-modified": "Tue, 01 Jul 2025 00:00:00 GMT" }).end("article");
    case "/gzip":
      return res.writeHead(200, { "content-encoding": "gzip", "content-length": gzipped.length }).end(gzipped);
    case "/br":
      return res.writeHead(200, { "content-encoding": "br" }).end(zlib.brotliCompressSync("<p>packed</p>"));
    case "/deflate":
      return res.writeHead(200, { "content-encoding": "deflate" }).end(zlib.deflateSync("<p>packed</p>"));
    case "/deflate-raw":
      return res.writeHead(200, { "content-encoding": "deflate" }).end(zlib.deflateRawSync("<p>packed</p>"));
    case "/gzip-twice":
      return res.writeHead(200, { "content-encoding": "gzip, gzip" }).end(gzipTwice);
    case "/gzip-thrice":
      return res.writeHead(200, { "content-encoding": "gzip, gzip, gzip" }).end(gzipThrice);
    case "/gzip-chain":
      // One long header asking for thousands of decoders.
      return res.writeHead(200, { "content-encoding": Array(3000).fill("gzip").join(",") }).end(gzipped);
    case "/bomb":
      return res.writeHead(200, { "content-encoding": "gzip", "content-length": bomb.length }).end(bomb);
    case "/r/1":
      return res.writeHead(302, { location: "2" }).end();
    case "/r/2":
      return res.writeHead(301, { location: `http://127.0.0.1:${port}/r/3` }).end();
    case "/r/3":
      return res.writeHead(303, { location: "/page?from=r3" }).end();
    case "/page?from=r3":
      return res.writeHead(200).end("landed");
    case "/to-localhost":
      return res.writeHead(302, { location: `http://localhost:${port}/secret` }).end();
    case "/to-intranet":
      return res.writeHead(302, { location: `http://intranet.test:${port}/secret` }).end();
    case "/to-ftp":
      return res.writeHead(302, { location: `ftp://127.0.0.1:${port}/secret` }).end();
    case "/to-other-origin":
      return res.writeHead(302, { location: `http://other.test:${port}/echo` }).end();
    case "/to-wiki":
      return res.writeHead(302, { location: `http://wiki.test:${port}/secret` }).end();
    case "/to-own-page":
      return res.writeHead(302, { location: "/page" }).end();
    case "/echo":
      return res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(req.headers));
    case "/secret":
      return res.writeHead(200).end("secret");
    case "/hang":
      return; // never answers
    case "/big-declared":
      // Declares more than the limit, then stalls: only the header can end this fetch.
      res.writeHead(200, { "content-length": 5000 });
      return res.write("x".repeat(100));
    case "/big-streamed":
      // No Content-Length, more than the limit, never ends: the fetcher must stop on the count.
      res.writeHead(200);
      return res.write("x".repeat(2048));
    default:
      return res.writeHead(404).end("no such fixture");
  }
}

beforeAll(async () => {
  server = http.createServer(route);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  seen.length = 0;
});

/** Limits for a test: the fixture's address and port allowed, everything else explicit. */
const limits = (over: Partial<FetchLimits> = {}): FetchLimits => ({
  maxBytes: 1024 * 1024,
  timeoutMs: 10_000,
  maxRedirects: 5,
  allowHosts: [`127.0.0.1:${port}`],
  ...over,
});

/** A lookup answering from a table (made-up names only), counting its calls. */
const lookupFrom = (table: Record<string, string[]>) =>
  vi.fn<Lookup>(async (hostname) => {
    const found = table[hostname];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return found.map((address) => ({ address, family: address.includes(":") ? (6 as const) : (4 as const) }));
  });

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected the fetch to fail");
}

describe("isPublicAddress", () => {
  it.each([
    ["0.0.0.0", false],
    ["0.1.2.3", false],
    ["10.0.0.1", false],
    ["100.64.0.1", false],
    ["100.127.255.255", false],
    ["100.128.0.1", true],
    ["127.0.0.1", false],
    ["127.255.0.9", false],
    ["169.254.169.254", false],
    ["172.16.0.1", false],
    ["172.31.255.255", false],
    ["172.32.0.1", true],
    ["192.0.0.8", false],
    ["192.0.2.1", false],
    ["192.168.1.1", false],
    ["198.18.0.1", false],
    ["198.19.255.255", false],
    ["198.20.0.1", true],
    ["198.51.100.7", false],
    ["203.0.113.9", false],
    ["224.0.0.1", false],
    ["239.255.255.250", false],
    ["240.0.0.1", false],
    ["255.255.255.255", false],
    ["8.8.8.8", true],
    ["1.1.1.1", true],
    ["93.184.215.14", true],
    ["::", false],
    ["::1", false],
    ["0:0:0:0:0:0:0:1", false],
    ["fc00::1", false],
    ["fd12:3456::1", false],
    ["fe80::1", false],
    ["fe80::1%eth0", false],
    ["febf::1", false],
    ["ff02::1", false],
    ["2001:db8::1", false],
    ["64:ff9b::a00:1", false],
    ["64:ff9b::808:808", false],
    ["::ffff:127.0.0.1", false],
    ["::ffff:7f00:1", false],
    ["0:0:0:0:0:ffff:a00:1", false],
    ["::ffff:169.254.169.254", false],
    ["::FFFF:192.168.0.1", false],
    // Every IPv4-mapped address, whatever it maps and however it is spelt.
    ["::ffff:8.8.8.8", false],
    ["0:0:0:0:0:ffff:808:808", false],
    ["::ffff:0:0", false],
    // Local-use NAT64, Teredo, the discard prefix.
    ["64:ff9b:1::1", false],
    ["64:ff9b:1:ffff::8.8.8.8", false],
    ["2001::1", false],
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", false],
    ["100::1", false],
    ["100::ffff:ffff:ffff:ffff", false],
    ["3fff::1", false],
    ["4000::1", false],
    ["2001:4860::1", true],
    ["2606:4700:4700::1111", true],
    ["2001:4860:4860::8888", true],
    ["fec0::1", false],
    ["::7f00:1", false],
    ["2002:7f00:1::1", false],
    ["", false],
    ["localhost", false],
    ["example.com", false],
    ["127.1", false],
    ["999.1.1.1", false],
  ])("%s → %s", (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});

describe("fetchLimits and the FETCH_* settings", () => {
  it("reads the limits from the environment, the host list trimmed and lowercased", () => {
    expect(fetchLimits()).toEqual({ maxBytes: 10 * 1024 * 1024, timeoutMs: 15_000, maxRedirects: 2, allowHosts: ["docs.test", "wiki.test:8080"] });
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
    const page = await guardedFetch(`${base}/page`, { limits: limits() });
    expect(page.status).toBe(200);
    expect(page.url).toBe(`${base}/page`);
    expect(page.body.toString()).toBe("<h1>hello</h1>");
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(page.headers["x-fixture"]).toBe("yes");
    expect(page.headers["set-cookie"]).toBe("a=1, b=2");
    expect(seen).toEqual(["/page"]);
  });

  it("sends its user agent and accept-encoding, whatever the caller's headers say", async () => {
    const page = await guardedFetch(`${base}/echo`, {
      limits: limits(),
      headers: { "Accept-Encoding": "zstd", Host: "elsewhere.test", "X-Extra": "1" },
    });
    const sent = JSON.parse(page.body.toString());
    expect(sent).toMatchObject({ "user-agent": "KB-Inspector-sync/1", "accept-encoding": "gzip, deflate, br", host: `127.0.0.1:${port}`, "x-extra": "1" });
  });

  it("passes conditional headers through and returns a 304 as a page", async () => {
    const first = await guardedFetch(`${base}/article`, { limits: limits() });
    expect(first.status).toBe(200);
    const again = await guardedFetch(`${base}/article`, {
      limits: limits(),
      headers: { "If-None-Match": first.headers.etag, "If-Modified-Since": first.headers["last-modified"] },
    });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(again.headers.etag).toBe('"v1"');
  });

  it.each(["/gzip", "/br", "/deflate", "/deflate-raw"])("decodes %s", async (path) => {
    const page = await guardedFetch(`${base}${path}`, { limits: limits() });
    expect(page.body.toString()).toBe("<p>packed</p>");
  });

  it("returns 404, 410 and 500 as pages: the caller decides", async () => {
    for (const status of [404, 410, 500]) {
      const page = await guardedFetch(`${base}/status/${status}`, { limits: limits() });
      expect(page.status).toBe(status);
      expect(page.body.toString()).toBe(`status ${status}`);
    }
  });

  it("follows a chain of redirects within the allowed host, relative and absolute", async () => {
    const page = await guardedFetch(`${base}/r/1`, { limits: limits() });
    expect(page).toMatchObject({ status: 200, url: `${base}/page?from=r3` });
    expect(page.body.toString()).toBe("landed");
    expect(seen).toEqual(["/r/1", "/r/2", "/r/3", "/page?from=r3"]);
  });

  it("fails after maxRedirects redirects, having followed exactly that many", async () => {
    const err = await rejection(guardedFetch(`${base}/loop/0`, { limits: limits({ maxRedirects: 3 }) }));
    expect(err).toBeInstanceOf(FetchFailed);
    expect(err.message).toMatch(/more than 3 redirects/);
    expect((err as FetchFailed).url).toBe(`${base}/loop/0`);
    expect(seen).toEqual(["/loop/0", "/loop/1", "/loop/2", "/loop/3"]);

    const none = await rejection(guardedFetch(`${base}/r/1`, { limits: limits({ maxRedirects: 0 }) }));
    expect(none.message).toMatch(/more than 0 redirects/);
  });

  it("drops credentials-bearing headers on a redirect to another origin, keeps the rest", async () => {
    // other.test stands for a public host: its loopback answer counts as public here.
    const page = await guardedFetch(`${base}/to-other-origin`, {
      limits: limits(),
      lookup: lookupFrom({ "other.test": ["127.0.0.1"] }),
      isPublic: () => true,
      headers: { Authorization: "Bearer secret", Cookie: "s=1", "If-None-Match": '"x"' },
    });
    expect(page.url).toBe(`http://other.test:${port}/echo`);
    const sent = JSON.parse(page.body.toString());
    expect(sent.authorization).toBeUndefined();
    expect(sent.cookie).toBeUndefined();
    expect(sent["if-none-match"]).toBe('"x"');
    expect(sent.host).toBe(`other.test:${port}`);
  });
});

describe("guardedFetch refuses before connecting", () => {
  it("refuses the fixture's address when it is not in allowHosts", async () => {
    for (const url of [`${base}/page`, `http://0x7f.1:${port}/page`, `http://127.1.2.3:${port}/page`]) {
      const err = await rejection(guardedFetch(url, { limits: limits({ allowHosts: [] }) }));
      expect(err, url).toBeInstanceOf(FetchRefused);
      expect(err.message).toMatch(/private, loopback or link-local address.*FETCH_ALLOW_HOSTS/);
    }
    expect(seen).toEqual([]);
  });

  it("matches allowHosts by name:port with the URL's effective port, a bare name only on the scheme's default port, case-insensitively", async () => {
    expect((await guardedFetch(`${base}/page`, { limits: limits({ allowHosts: [`127.0.0.1:${port}`] }) })).status).toBe(200);
    const otherPort = await rejection(guardedFetch(`${base}/page`, { limits: limits({ allowHosts: ["127.0.0.1:80"] }) }));
    expect(otherPort).toBeInstanceOf(FetchRefused);
    // A bare name stands for port 80 (http) or 443 (https), not for every port of the host.
    const bare = await rejection(guardedFetch(`${base}/page`, { limits: limits({ allowHosts: ["127.0.0.1"] }) }));
    expect(bare).toBeInstanceOf(FetchRefused);
    expect(bare.message).toMatch(/private, loopback or link-local address/);
    const lookup = lookupFrom({ "docs.test": ["127.0.0.1"] });
    expect((await guardedFetch(`http://DOCS.test:${port}/page`, { limits: limits({ allowHosts: [`Docs.Test:${port}`] }), lookup })).status).toBe(200);
    expect(seen).toEqual(["/page", "/page"]);
  });

  it("refuses localhost and *.localhost without resolving them, unless listed", async () => {
    const lookup = lookupFrom({ localhost: ["127.0.0.1"], "app.localhost": ["127.0.0.1"] });
    for (const url of [`http://localhost:${port}/page`, `http://LOCALHOST.:${port}/page`, `http://app.localhost:${port}/page`]) {
      const err = await rejection(guardedFetch(url, { limits: limits(), lookup }));
      expect(err, url).toBeInstanceOf(FetchRefused);
      expect(err.message).toMatch(/FETCH_ALLOW_HOSTS/);
    }
    expect(lookup).not.toHaveBeenCalled();
    expect(seen).toEqual([]);

    const listed = await guardedFetch(`http://localhost:${port}/page`, { limits: limits({ allowHosts: [`localhost:${port}`] }), lookup });
    expect(listed.status).toBe(200);
    expect(seen).toEqual(["/page"]);
  });

  it("refuses a redirect from the allowed fixture to localhost, and /secret is never asked for", async () => {
    const lookup = lookupFrom({ localhost: ["127.0.0.1"] });
    const err = await rejection(guardedFetch(`${base}/to-localhost`, { limits: limits(), lookup }));
    expect(err).toBeInstanceOf(FetchRefused);
    expect(err.message).toContain(`"http://localhost:${port}/secret"`);
    expect(err.message).toContain(`redirected from "${base}/to-localhost"`);
    expect((err as FetchRefused).url).toBe(`${base}/to-localhost`);
    expect(lookup).not.toHaveBeenCalled();
    expect(seen).toEqual(["/to-localhost"]);
  });

  it("refuses a redirect to a name that resolves to a private address, and to another scheme", async () => {
    const lookup = lookupFrom({ "intranet.test": ["127.0.0.1"] });
    const private_ = await rejection(guardedFetch(`${base}/to-intranet`, { limits: limits(), lookup }));
    expect(private_).toBeInstanceOf(FetchRefused);
    expect(private_.message).toMatch(/intranet\.test resolves to a private, loopback or link-local address\. FETCH_ALLOW_HOSTS/);
    const ftp = await rejection(guardedFetch(`${base}/to-ftp`, { limits: limits() }));
    expect(ftp).toBeInstanceOf(FetchRefused);
    expect(ftp.message).toMatch(/is not an http\(s\) URL/);
    expect(seen).toEqual(["/to-intranet", "/to-ftp"]);
  });

  it("refuses a name resolving to private addresses, even one among public ones, without connecting", async () => {
    // The loopback answer comes first: a fetcher that connected anyway would reach the fixture, not the world.
    const lookup = lookupFrom({ "intranet.test": ["127.0.0.1"], "mixed.test": ["127.0.0.1", "93.184.215.14"] });
    for (const host of ["intranet.test", "mixed.test"]) {
      const err = await rejection(guardedFetch(`http://${host}:${port}/secret`, { limits: limits(), lookup }));
      expect(err, host).toBeInstanceOf(FetchRefused);
      expect(err.message).toMatch(new RegExp(`${host.replace(".", "\\.")} resolves to a private, loopback or link-local address\\. FETCH_ALLOW_HOSTS lists hosts allowed anyway`));
    }
    expect(lookup).toHaveBeenCalledTimes(2);
    expect(seen).toEqual([]);
  });

  it("refuses URLs that are not http(s), not URLs, or carry a user name or password", async () => {
    const cases: [string, RegExp][] = [
      ["ftp://x", /^"ftp:\/\/x" is not an http\(s\) URL\.$/],
      ["file:///etc/passwd", /is not an http\(s\) URL/],
      ["not a url", /is not a valid URL/],
      [`http://user:pw@127.0.0.1:${port}/page`, /has a user name or password/],
      [`http://user@127.0.0.1:${port}/page`, /has a user name or password/],
    ];
    for (const [url, message] of cases) {
      const err = await rejection(guardedFetch(url, { limits: limits() }));
      expect(err, url).toBeInstanceOf(FetchRefused);
      expect(err.message).toMatch(message);
      // The password is never repeated.
      expect(err.message).not.toContain("pw");
      expect((err as FetchRefused).url).not.toContain("pw");
    }
    expect(seen).toEqual([]);
  });
});

describe("an allow-listed host is reached only by callers configured with its site", () => {
  // wiki.test is the internal wiki of one agent's source, partner.test another agent's partner site; both listed.
  const lookup = () => lookupFrom({ "wiki.test": ["127.0.0.1"], "partner.test": ["127.0.0.1"] });
  const both = () => limits({ allowHosts: [`wiki.test:${port}`, `partner.test:${port}`] });

  it("fetches a listed host for a caller whose scope names its site, and redirects within that site", async () => {
    const page = await guardedFetch(`http://wiki.test:${port}/to-own-page`, { limits: both(), lookup: lookup(), scope: [`http://wiki.test:${port}/sitemap.xml`] });
    expect(page).toMatchObject({ status: 200, url: `http://wiki.test:${port}/page` });
    expect(seen).toEqual(["/to-own-page", "/page"]);
  });

  it("refuses a listed host to a caller configured with another site, naming the rule, before connecting", async () => {
    const err = await rejection(guardedFetch(`http://wiki.test:${port}/secret`, { limits: both(), lookup: lookup(), scope: [`http://partner.test:${port}/sitemap.xml`] }));
    expect(err).toBeInstanceOf(FetchRefused);
    expect(err.message).toMatch(new RegExp(`admits wiki\\.test:${port} only for a source whose own sitemap or page URLs are on it`));
    expect(seen).toEqual([]);
  });

  it("refuses a redirect from one listed site to another, even when the caller names both", async () => {
    const scope = [`http://partner.test:${port}/a.html`, `http://wiki.test:${port}/b.html`];
    const err = await rejection(guardedFetch(`http://partner.test:${port}/to-wiki`, { limits: both(), lookup: lookup(), scope }));
    expect(err).toBeInstanceOf(FetchRefused);
    expect(err.message).toContain(`redirected from "http://partner.test:${port}/to-wiki"`);
    expect(seen).toEqual(["/to-wiki"]);
  });

  it("refuses a redirect from a public site into a listed one", async () => {
    // public.test stands for a public host: a second server on 127.0.0.2, whose address counts as public here.
    const other = http.createServer(route);
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.2", resolve));
    try {
      const otherPort = (other.address() as AddressInfo).port;
      const err = await rejection(
        guardedFetch(`http://public.test:${otherPort}/to-wiki`, {
          limits: both(),
          lookup: lookupFrom({ "public.test": ["127.0.0.2"], "wiki.test": ["127.0.0.1"] }),
          isPublic: (address) => address === "127.0.0.2",
          scope: [`http://public.test:${otherPort}/`, `http://wiki.test:${port}/`],
        }),
      );
      expect(err).toBeInstanceOf(FetchRefused);
      expect(err.message).toMatch(/wiki\.test resolves to a private, loopback or link-local address\. FETCH_ALLOW_HOSTS admits/);
      expect(seen).toEqual(["/to-wiki"]);
    } finally {
      other.closeAllConnections();
      await new Promise((resolve) => other.close(resolve));
    }
  });
});

describe("refusals name the rule, not the address", () => {
  it("never repeats what a name resolved to", async () => {
    const lookup = lookupFrom({ "intranet.test": ["10.1.2.3", "fd00::7"] });
    const direct = await rejection(guardedFetch(`http://intranet.test:${port}/secret`, { limits: limits(), lookup }));
    const redirected = await rejection(guardedFetch(`${base}/to-intranet`, { limits: limits(), lookup }));
    for (const err of [direct, redirected]) {
      expect(err).toBeInstanceOf(FetchRefused);
      expect(err.message).toMatch(/intranet\.test resolves to a private, loopback or link-local address/);
      expect(err.message).not.toContain("10.1.2.3");
      expect(err.message).not.toContain("fd00");
    }
  });
});

describe("the Content-Encoding chain is bounded", () => {
  it("decodes two encodings and fails three or more with a clear reason", async () => {
    expect((await guardedFetch(`${base}/gzip-twice`, { limits: limits() })).body.toString()).toBe("<p>packed</p>");
    const three = await rejection(guardedFetch(`${base}/gzip-thrice`, { limits: limits() }));
    expect(three).toBeInstanceOf(FetchFailed);
    expect(three.message).toMatch(/answered with 3 content-encodings; at most 2 are decoded/);
    const chain = await rejection(guardedFetch(`${base}/gzip-chain`, { limits: limits() }));
    expect(chain).toBeInstanceOf(FetchFailed);
    expect(chain.message).toMatch(/answered with 3000 content-encodings/);
  });
});

describe("a sink takes the body as it is read", () => {
  it("hands each decoded chunk to the sink and keeps none", async () => {
    const chunks: Buffer[] = [];
    const page = await guardedFetch(`${base}/gzip`, { limits: limits(), sink: (c) => chunks.push(c) });
    expect(page.body.length).toBe(0);
    expect(Buffer.concat(chunks).toString()).toBe("<p>packed</p>");
  });
});

describe("guardedFetch fails within its limits", () => {
  it("fails a page declared over maxBytes without waiting for its body", async () => {
    const err = await rejection(guardedFetch(`${base}/big-declared`, { limits: limits({ maxBytes: 1024 }) }));
    expect(err).toBeInstanceOf(FetchFailed);
    expect(err.message).toMatch(/the page is over 1 KB/);
  });

  it("fails a page without Content-Length as soon as it passes maxBytes", async () => {
    const err = await rejection(guardedFetch(`${base}/big-streamed`, { limits: limits({ maxBytes: 1024 }) }));
    expect(err).toBeInstanceOf(FetchFailed);
    expect(err.message).toMatch(/the page is over 1 KB/);
  });

  it("counts maxBytes after decoding: a small gzip of a large page fails", async () => {
    const err = await rejection(guardedFetch(`${base}/bomb`, { limits: limits({ maxBytes: 64 * 1024 }) }));
    expect(err).toBeInstanceOf(FetchFailed);
    expect(err.message).toMatch(/the page is over 64 KB/);
    expect((await guardedFetch(`${base}/bomb`, { limits: limits({ maxBytes: 1024 * 1024 }) })).body.length).toBe(1024 * 1024);
  });

  it("fails a server that never answers after timeoutMs", async () => {
    const err = await rejection(guardedFetch(`${base}/hang`, { limits: limits({ timeoutMs: 200 }) }));
    expect(err).toBeInstanceOf(FetchFailed);
    expect(err.message).toMatch(/no answer within 0\.2 s/);
  });

  it("says a refused connection in words, without a stack", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const freePort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const err = await rejection(guardedFetch(`http://127.0.0.1:${freePort}/`, { limits: limits({ allowHosts: [`127.0.0.1:${freePort}`] }) }));
    expect(err).toBeInstanceOf(FetchFailed);
    expect(err.message).toBe(`Could not fetch "http://127.0.0.1:${freePort}/": connection refused.`);
  });

  it("says when an allowed name does not resolve", async () => {
    const err = await rejection(guardedFetch(`http://docs.test:${port}/`, { limits: limits({ allowHosts: [`docs.test:${port}`] }), lookup: lookupFrom({}) }));
    expect(err).toBeInstanceOf(FetchFailed);
    expect(err.message).toMatch(/docs\.test was not found/);
  });
});

describe("the connection goes to the address that was checked", () => {
  it("connects an allowed name to the looked-up address, asking once: a changed second answer is never used", async () => {
    let calls = 0;
    // 127.0.0.2 is loopback too, but nothing listens there: were it asked again, the fetch would fail.
    const lookup: Lookup = async () => [{ address: calls++ === 0 ? "127.0.0.1" : "127.0.0.2", family: 4 }];
    const page = await guardedFetch(`http://docs.test:${port}/page`, { limits: limits({ allowHosts: [`docs.test:${port}`] }), lookup });
    expect(page.status).toBe(200);
    expect(calls).toBe(1);
    expect(seen).toEqual(["/page"]);
  });

  it("builds request options pinned to the checked addresses, TLS verifying the URL's name", () => {
    const checked = [
      { address: "192.0.2.10", family: 4 as const },
      { address: "2001:db8::10", family: 6 as const },
    ];
    const options = pinnedRequestOptions({ url: new URL("https://docs.example.test:8443/a/b?c=1"), addresses: checked }, { "user-agent": "KB-Inspector-sync/1" });
    expect(options).toMatchObject({
      protocol: "https:",
      hostname: "docs.example.test",
      port: "8443",
      path: "/a/b?c=1",
      method: "GET",
      agent: false,
      servername: "docs.example.test",
      headers: { "user-agent": "KB-Inspector-sync/1", host: "docs.example.test:8443" },
    });

    // Called the two ways node's net module calls a lookup; it answers without DNS.
    const all = vi.fn();
    options.lookup!("docs.example.test", { all: true }, all);
    expect(all).toHaveBeenCalledWith(null, checked);
    const one = vi.fn();
    options.lookup!("docs.example.test", {}, one);
    expect(one).toHaveBeenCalledWith(null, "192.0.2.10", 4);
  });

  it("connects an IP literal as it is: no lookup, no SNI", () => {
    const options = pinnedRequestOptions({ url: new URL("https://[2001:db8::1111]/x"), addresses: null }, {});
    expect(options.lookup).toBeUndefined();
    expect(options.servername).toBeUndefined();
    expect(options).toMatchObject({ hostname: "2001:db8::1111", port: 443, headers: { host: "[2001:db8::1111]" } });
  });

  it("pinnedLookup ignores the name it is asked for", () => {
    const cb = vi.fn<(err: unknown, address: string | LookupAddress[], family?: number) => void>();
    pinnedLookup([{ address: "127.0.0.1", family: 4 }])("rebound.test", { family: 6 }, cb);
    expect(cb).toHaveBeenCalledWith(null, "127.0.0.1", 4);
  });
});
