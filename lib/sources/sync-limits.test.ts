import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newAgent } from "@/test/helpers";
import { startFixtureSite, type FixtureSite } from "@/test/fixture-site";
import { listDocuments } from "@/lib/db/documents";
import { createSource, updateSource } from "@/lib/db/sources";
import { guardedFetch, isPublicAddress } from "@/lib/fetch/guarded";
import { sourceCreateSchema } from "@/lib/validations/source";
import { syncSource, type Fetcher } from "./sync";

// Three hosts on loopback addresses: an internal wiki and a partner site, both allow-listed (by
// host and port), and a site standing for a public host (its address counts as public here).
let wiki: FixtureSite;
let partner: FixtureSite;
let outside: FixtureSite;
let site: FixtureSite;
beforeAll(async () => {
  [wiki, partner, outside, site] = await Promise.all([
    startFixtureSite("127.0.0.2"),
    startFixtureSite("127.0.0.3"),
    startFixtureSite("127.0.0.4"),
    startFixtureSite(),
  ]);
});
afterAll(() => Promise.all([wiki, partner, outside, site].map((s) => s.close())));

const host = (s: FixtureSite) => new URL(s.origin).host;
const fetcher: Fetcher = (url, o) =>
  guardedFetch(url, {
    ...o,
    limits: { allowHosts: [host(wiki), host(partner), host(site)], timeoutMs: 10_000 },
    isPublic: (address) => address === "127.0.0.4" || isPublicAddress(address),
  });
const ready = (agentId: number) => listDocuments(agentId).filter((d) => d.status === "ready");
const urlset = (urls: string[]) =>
  `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls.map((u) => `<url><loc>${u}</loc></url>`).join("")}</urlset>`;
const sitemapIndex = (urls: string[]) =>
  `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls.map((u) => `<sitemap><loc>${u}</loc></sitemap>`).join("")}</sitemapindex>`;
const xml = (body: string) => ({ type: "application/xml", body });

describe("an allow-listed host is reached only by the sources configured on it", () => {
  it("syncs the wiki for its own source, never through another source's sitemap entry or redirect", async () => {
    wiki.pages.set("/w/secret.html", { body: wiki.article("Salaries", "The salary bands of every team are reviewed each April.") });
    wiki.pages.set("/w/sitemap.xml", xml(urlset([wiki.url("/w/secret.html")])));
    partner.pages.set("/p/shipping.html", {
      body: partner.article("Shipping", "Orders ship within two business days from the warehouse in Leeds."),
    });
    partner.pages.set("/p/moved.html", { redirect: wiki.url("/w/secret.html") });
    outside.pages.set("/o/returns.html", { body: outside.article("Returns", "Returns are free within 60 days with the printed label.") });
    partner.pages.set(
      "/p/sitemap.xml",
      xml(
        urlset([partner.url("/p/shipping.html"), partner.url("/p/moved.html"), wiki.url("/w/secret.html"), outside.url("/o/returns.html")]),
      ),
    );

    const a = newAgent("Wiki owner");
    const own = createSource(a.id, sourceCreateSchema.parse({ sitemap: wiki.url("/w/sitemap.xml") }));
    expect(await syncSource(a.id, own.id, { fetcher, ratePerSecond: 0 })).toMatchObject({ status: "done", added: 1, failed: 0 });

    const b = newAgent("Partner");
    const theirs = createSource(b.id, sourceCreateSchema.parse({ sitemap: partner.url("/p/sitemap.xml") }));
    const before = wiki.requests.length;
    const first = await syncSource(b.id, theirs.id, { fetcher, ratePerSecond: 0 });
    expect(first).toMatchObject({ status: "done", seen: 2, added: 1, failed: 1 });
    // The wiki and the other host's entries are left out, and said so; the redirect into the wiki is refused.
    expect(first.note).toMatch(/2 entries on other hosts than the sitemap's were left out/);
    expect(first.failures).toEqual([
      {
        url: partner.url("/p/moved.html"),
        reason: expect.stringMatching(/FETCH_ALLOW_HOSTS admits 127\.0\.0\.2:\d+ only for a source whose own/),
      },
    ]);
    expect(wiki.requests.length).toBe(before);
    expect(ready(b.id).map((d) => d.source_url)).toEqual([partner.url("/p/shipping.html")]);

    // Following other hosts brings in the public one; the wiki stays out of reach.
    expect(sourceCreateSchema.parse({ sitemap: partner.url("/p/sitemap.xml") })).toMatchObject({ cross_host: false });
    updateSource(b.id, theirs.id, { cross_host: true });
    const second = await syncSource(b.id, theirs.id, { fetcher, ratePerSecond: 0 });
    expect(second).toMatchObject({ status: "done", seen: 4, added: 1, unchanged: 1, failed: 2, note: null });
    const reasons = Object.fromEntries(second.failures.map((f) => [f.url, f.reason]));
    expect(reasons[wiki.url("/w/secret.html")]).toMatch(/FETCH_ALLOW_HOSTS admits/);
    expect(reasons[partner.url("/p/moved.html")]).toMatch(/FETCH_ALLOW_HOSTS admits/);
    expect(wiki.requests.length).toBe(before);
    expect(
      ready(b.id)
        .map((d) => d.source_url)
        .sort(),
    ).toEqual([outside.url("/o/returns.html"), partner.url("/p/shipping.html")].sort());
  });
});

/** An index of `children` sitemaps of `each` pages under `prefix`; the pages of the first `served` sitemaps exist. */
function bigIndex(prefix: string, children: number, each: number, served = children) {
  for (let i = 0; i < children; i++) {
    const paths = Array.from({ length: each }, (_, j) => `${prefix}/p${i}-${j}.html`);
    site.pages.set(`${prefix}/s${i}.xml`, xml(urlset(paths.map(site.url))));
    if (i < served)
      for (const p of paths)
        site.pages.set(p, {
          body: site.article(p, `Article ${p} says ${i * 100 + Number(p.split("-")[1]!.split(".")[0])} about refunds.`),
        });
  }
  site.pages.set(`${prefix}/index.xml`, xml(sitemapIndex(Array.from({ length: children }, (_, i) => site.url(`${prefix}/s${i}.xml`)))));
  return site.url(`${prefix}/index.xml`);
}
const sitemapsAsked = (prefix: string) => site.requests.filter((r) => r.path.startsWith(`${prefix}/s`)).length;

describe("a sync reads a sitemap within its bounds and says what it left", () => {
  it("stops at the page bound without reading the rest of a huge index, and records why", async () => {
    const agent = newAgent("Huge index");
    const index = bigIndex("/huge", 30, 20, 1);
    const source = createSource(agent.id, sourceCreateSchema.parse({ sitemap: index }));
    const r = await syncSource(agent.id, source.id, { fetcher, ratePerSecond: 0, maxPages: 5, maxSitemaps: 100 });
    expect(r).toMatchObject({ status: "done", seen: 5, added: 5, failed: 0 });
    expect(r.note).toBe(
      "Stopped at 5 pages (FETCH_MAX_PAGES); the sitemaps read list 20, and 29 more sitemaps were not read. Pages the unread part may list are not treated as gone.",
    );
    expect(sitemapsAsked("/huge")).toBe(1);
  });

  it("stops after the sitemap-file bound and the entries-per-file bound; a list cut short proposes no removal", async () => {
    const agent = newAgent("Bounded index");
    const index = bigIndex("/mid", 6, 3);
    const source = createSource(agent.id, sourceCreateSchema.parse({ sitemap: index }));
    expect(await syncSource(agent.id, source.id, { fetcher, ratePerSecond: 0 })).toMatchObject({ status: "done", added: 18, note: null });

    const files = await syncSource(agent.id, source.id, { fetcher, ratePerSecond: 0, maxSitemaps: 3 });
    expect(files).toMatchObject({ status: "done", seen: 6, unchanged: 6, proposed: 0, removed: 0 });
    expect(files.note).toMatch(/^Stopped after reading 3 sitemaps \(FETCH_MAX_SITEMAPS\); 4 more were not read\./);

    const entries = await syncSource(agent.id, source.id, { fetcher, ratePerSecond: 0, maxSitemapUrls: 2 });
    // The index too: 2 of its 6 sitemaps, 2 pages of each.
    expect(entries).toMatchObject({ status: "done", seen: 4, unchanged: 4, proposed: 0, removed: 0 });
    expect(entries.note).toMatch(/^3 sitemaps list more than 2 entries; the rest was not read \(FETCH_MAX_SITEMAP_URLS\)\./);
    expect(ready(agent.id)).toHaveLength(18);
  });

  it("paces the sitemap requests with the page requests", async () => {
    const agent = newAgent("Paced");
    const index = bigIndex("/paced", 3, 2);
    const source = createSource(agent.id, sourceCreateSchema.parse({ sitemap: index }));
    let paced = 0;
    const pace = async () => void paced++;
    const before = site.requests.length;
    const r = await syncSource(agent.id, source.id, { fetcher, pace });
    expect(r).toMatchObject({ status: "done", added: 6 });
    // The index, its 3 sitemaps and the 6 pages: one wait before each request.
    expect(site.requests.length - before).toBe(10);
    expect(paced).toBe(10);
  });
});
