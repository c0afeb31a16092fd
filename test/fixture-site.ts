import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface FixturePage {
  status?: number;
  body?: string;
  type?: string;
  /** Answer with this Location (and status 302 unless another is set). */
  redirect?: string;
  /** Never answer: the fetcher's own timeout ends the request. */
  hang?: boolean;
}

/**
 * A help-centre site on 127.0.0.1 (or another loopback address, standing for another host) for sync tests and the bench: pages the test changes between
 * syncs, strong ETags and Last-Modified so a conditional fetch answers 304, and a log of every
 * request (path and the validators it carried).
 */
export async function startFixtureSite(host = "127.0.0.1") {
  const pages = new Map<string, FixturePage>();
  const requests: { path: string; conditional: boolean }[] = [];
  const modified = new Map<string, string>();
  /** validators false: the site ignores If-None-Match, as many do, and sends every page whole. */
  const options = { validators: true };
  const server = http.createServer((req, res) => {
    const path = req.url ?? "/";
    const conditional = Boolean(req.headers["if-none-match"] || req.headers["if-modified-since"]);
    requests.push({ path, conditional });
    const page = pages.get(path);
    if (!page) return void res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    if (page.hang) return;
    if (page.redirect) return void res.writeHead(page.status ?? 302, { location: page.redirect }).end();
    const body = page.body ?? "";
    const etag = `"${createHash("sha256").update(body).digest("hex").slice(0, 16)}"`;
    if (!modified.has(etag)) modified.set(etag, new Date(Date.UTC(2026, 0, 1) + modified.size * 1000).toUTCString());
    const headers = { "content-type": page.type ?? "text/html; charset=utf-8", etag, "last-modified": modified.get(etag)! };
    const status = page.status ?? 200;
    if (status === 200 && options.validators && req.headers["if-none-match"] === etag) return void res.writeHead(304, headers).end();
    res.writeHead(status, headers).end(body);
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  const origin = `http://${host}:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    options,
    pages,
    requests,
    url: (path: string) => `${origin}${path}`,
    /** Serves a sitemap at `path` listing these page paths. */
    sitemap(paths: string[], path = "/sitemap.xml") {
      const urls = paths.map((p) => `  <url><loc>${origin}${p}</loc></url>`).join("\n");
      pages.set(path, {
        type: "application/xml",
        body: `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls}\n</urlset>\n`,
      });
    },
    article: (title: string, text: string) =>
      `<!doctype html><html><head><title>${title}</title></head><body><nav>Home · Help</nav><main><article><h1>${title}</h1><p>${text}</p></article></main></body></html>`,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

export type FixtureSite = Awaited<ReturnType<typeof startFixtureSite>>;
