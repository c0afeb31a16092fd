import http from "node:http";
import type { AddressInfo } from "node:net";
import zlib from "node:zlib";
import { afterAll, beforeAll, beforeEach, vi } from "vitest";
import type { FetchLimits, Lookup } from "@/lib/fetch/guarded";

// The site the guarded-fetch tests (lib/fetch/guarded*.test.ts) fetch from: every request they make
// goes to it on 127.0.0.1; private addresses elsewhere are only ever strings handed to
// isPublicAddress or answers of an injected lookup.

export interface GuardedFetchSite {
  port: number;
  /** http://127.0.0.1:{port} */
  base: string;
  /** Paths the fixture server was asked for, in order (emptied before each test). */
  seen: string[];
  /** The server's handler, for a second server standing for another host. */
  route: http.RequestListener;
  /** Limits for a test: the fixture's address and port allowed, everything else explicit. */
  limits: (over?: Partial<FetchLimits>) => FetchLimits;
}

/** Starts the fixture server for the calling test file (stopped after its tests) and returns it. */
export function guardedFetchSite(): GuardedFetchSite {
  let server: http.Server;
  const site: GuardedFetchSite = {
    port: 0,
    base: "",
    seen: [],
    route,
    limits: (over = {}) => ({
      maxBytes: 1024 * 1024,
      timeoutMs: 10_000,
      maxRedirects: 5,
      allowHosts: [`127.0.0.1:${site.port}`],
      ...over,
    }),
  };

  const gzipped = zlib.gzipSync("<p>packed</p>");
  const bomb = zlib.gzipSync(Buffer.alloc(1024 * 1024));
  const gzipTwice = zlib.gzipSync(zlib.gzipSync("<p>packed</p>"));
  const gzipThrice = zlib.gzipSync(gzipTwice);

  function route(req: http.IncomingMessage, res: http.ServerResponse) {
    const path = req.url ?? "/";
    site.seen.push(path);
    const loop = /^\/loop\/(\d+)$/.exec(path);
    if (loop) return res.writeHead(302, { location: `/loop/${Number(loop[1]) + 1}` }).end();
    const status = /^\/status\/(\d+)$/.exec(path);
    if (status) return res.writeHead(Number(status[1]), { "content-type": "text/plain" }).end(`status ${status[1]}`);
    switch (path) {
      case "/page":
        return res
          .writeHead(200, { "content-type": "text/html; charset=utf-8", "X-Fixture": "yes", "set-cookie": ["a=1", "b=2"] })
          .end("<h1>hello</h1>");
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
        return res.writeHead(301, { location: `http://127.0.0.1:${site.port}/r/3` }).end();
      case "/r/3":
        return res.writeHead(303, { location: "/page?from=r3" }).end();
      case "/page?from=r3":
        return res.writeHead(200).end("landed");
      case "/to-localhost":
        return res.writeHead(302, { location: `http://localhost:${site.port}/secret` }).end();
      case "/to-intranet":
        return res.writeHead(302, { location: `http://intranet.test:${site.port}/secret` }).end();
      case "/to-ftp":
        return res.writeHead(302, { location: `ftp://127.0.0.1:${site.port}/secret` }).end();
      case "/to-other-origin":
        return res.writeHead(302, { location: `http://other.test:${site.port}/echo` }).end();
      case "/to-wiki":
        return res.writeHead(302, { location: `http://wiki.test:${site.port}/secret` }).end();
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
    site.port = (server.address() as AddressInfo).port;
    site.base = `http://127.0.0.1:${site.port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  beforeEach(() => {
    site.seen.length = 0;
  });

  return site;
}

/** A lookup answering from a table (made-up names only), counting its calls. */
export const lookupFrom = (table: Record<string, string[]>) =>
  vi.fn<Lookup>(async (hostname) => {
    const found = table[hostname];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return found.map((address) => ({ address, family: address.includes(":") ? (6 as const) : (4 as const) }));
  });

export async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected the fetch to fail");
}
