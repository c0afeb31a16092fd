import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ingest, newAgent } from "@/test/helpers";
import { startFixtureSite, type FixtureSite } from "@/test/fixture-site";
import { listDocuments } from "@/lib/db/documents";
import {
  createSource,
  deleteSource,
  dueSources,
  failInterruptedSyncs,
  getSource,
  recentSyncs,
  sourcePages,
  startSync,
} from "@/lib/db/sources";
import { retrieve } from "@/lib/retrieval/retrieve";
import { guardedFetch } from "@/lib/fetch/guarded";
import { sourceCreateSchema } from "@/lib/validations/source";
import { startSourceSync, syncSource, type Fetcher } from "./sync";
import { resolveRemovals } from "./removals";
import { startDueSyncs } from "./schedule";

let site: FixtureSite;
beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(() => site.close());

// The real fetcher, with only the fixture's host and port allowed and a short wait for the page that never answers.
const fetcher: Fetcher = (url, o) => guardedFetch(url, { ...o, limits: { allowHosts: [new URL(site.origin).host], timeoutMs: 4_000 } });
const sync = (agentId: number, sourceId: number) => syncSource(agentId, sourceId, { fetcher, ratePerSecond: 0 });

const ready = (agentId: number) => listDocuments(agentId).filter((d) => d.status === "ready");
const counts = (r: {
  seen: number;
  added: number;
  changed: number;
  removed: number;
  proposed: number;
  unchanged: number;
  failed: number;
}) => ({
  seen: r.seen,
  added: r.added,
  changed: r.changed,
  removed: r.removed,
  proposed: r.proposed,
  unchanged: r.unchanged,
  failed: r.failed,
});

let n = 0;
/** A fresh set of pages under its own prefix, so the tests of this file do not see each other's. */
function pagesFor(texts: Record<string, string>) {
  const prefix = `/s${++n}`;
  const paths: Record<string, string> = {};
  for (const [name, text] of Object.entries(texts)) {
    paths[name] = `${prefix}/articles/${name}.html`;
    site.pages.set(paths[name], { body: site.article(name, text) });
  }
  const sitemap = `${prefix}/sitemap.xml`;
  site.sitemap(Object.values(paths), sitemap);
  return { prefix, paths, sitemap: site.url(sitemap) };
}

function sitemapSource(agentId: number, sitemap: string, on_removed: "propose" | "remove" = "propose") {
  return createSource(agentId, sourceCreateSchema.parse({ sitemap, on_removed }));
}

const REFUNDS = "A full refund is available within 30 days of purchase, to the original payment method.";
const SHIPPING = "Orders ship within two business days from the warehouse in Leeds.";
const PASSWORD = "Use the forgot password link on the sign-in page; the reset link works for one hour.";

describe("syncing a sitemap source", () => {
  it("imports every page as a document that keeps its URL, then a second sync changes nothing and asks with validators", async () => {
    const agent = newAgent("Sync import");
    const { paths, sitemap } = pagesFor({ refunds: REFUNDS, shipping: SHIPPING, password: PASSWORD });
    const source = sitemapSource(agent.id, sitemap);
    const first = await sync(agent.id, source.id);
    expect(first.status).toBe("done");
    expect(counts(first)).toEqual({ seen: 3, added: 3, changed: 0, removed: 0, proposed: 0, unchanged: 0, failed: 0 });
    const docs = ready(agent.id);
    const port = new URL(site.origin).port;
    expect(docs.map((d) => d.filename).sort()).toEqual(
      ["password", "refunds", "shipping"].map((p) => `127.0.0.1:${port}${paths[p]}`).sort(),
    );
    expect(docs.map((d) => d.source_url).sort()).toEqual(Object.values(paths).map(site.url).sort());
    expect(docs.every((d) => d.fetched_at !== null && d.type === "html")).toBe(true);
    // The reader kept the article, not the site's navigation.
    const [hit] = await retrieve(agent.id, ["refund within 30 days"], { topK: 1 }).then((r) => r[0]!);
    expect(hit!.filename).toContain("/articles/refunds.html");

    const before = site.requests.length;
    const second = await sync(agent.id, source.id);
    expect(counts(second)).toEqual({ seen: 3, added: 0, changed: 0, removed: 0, proposed: 0, unchanged: 3, failed: 0 });
    expect(
      ready(agent.id)
        .map((d) => d.id)
        .sort(),
    ).toEqual(docs.map((d) => d.id).sort());
    const pageRequests = site.requests.slice(before).filter((r) => r.path.includes("/articles/"));
    expect(pageRequests).toHaveLength(3);
    expect(pageRequests.every((r) => r.conditional)).toBe(true);
    expect(recentSyncs(source.id).map((s) => s.id)).toEqual([second.id, first.id]);
  });

  it("re-indexes an edited page in place of its old version", async () => {
    const agent = newAgent("Sync edit");
    const { paths, sitemap } = pagesFor({ refunds: REFUNDS, shipping: SHIPPING });
    const source = sitemapSource(agent.id, sitemap);
    await sync(agent.id, source.id);
    const old = ready(agent.id).find((d) => d.source_url === site.url(paths.refunds))!;
    site.pages.set(paths.refunds, { body: site.article("refunds", "Refunds now take store credit only, issued within 48 hours.") });
    const r = await sync(agent.id, source.id);
    expect(counts(r)).toMatchObject({ changed: 1, unchanged: 1, added: 0, failed: 0 });
    const docs = ready(agent.id);
    expect(docs).toHaveLength(2);
    expect(docs.map((d) => d.id)).not.toContain(old.id);
    const [hit] = (await retrieve(agent.id, ["store credit within 48 hours"], { topK: 1 }))[0]!;
    expect(hit!.chunk_text).toContain("store credit");
    expect(hit!.document_id).not.toBe(old.id);
  });

  it("proposes removing a page that left the sitemap, keeps its document until a person removes it", async () => {
    const agent = newAgent("Sync propose");
    const { paths, sitemap } = pagesFor({ refunds: REFUNDS, shipping: SHIPPING, password: PASSWORD });
    const source = sitemapSource(agent.id, sitemap);
    await sync(agent.id, source.id);
    site.sitemap([paths.refunds, paths.shipping], new URL(sitemap).pathname);
    site.pages.set(paths.shipping, { status: 410 });
    const r = await sync(agent.id, source.id);
    expect(counts(r)).toMatchObject({ proposed: 2, removed: 0, unchanged: 1 });
    expect(ready(agent.id)).toHaveLength(3);
    const proposed = sourcePages(source.id)
      .filter((p) => p.state === "removal_proposed")
      .map((p) => p.url)
      .sort();
    expect(proposed).toEqual([site.url(paths.password), site.url(paths.shipping)].sort());

    await expect(resolveRemovals(agent.id, source.id, "remove", [site.url(paths.refunds)])).rejects.toThrow(/No proposed removal/);
    expect(await resolveRemovals(agent.id, source.id, "keep", [site.url(paths.shipping)])).toEqual({ removed: 0, kept: 1 });
    expect(await resolveRemovals(agent.id, source.id, "remove", "all")).toEqual({ removed: 1, kept: 0 });
    expect(
      ready(agent.id)
        .map((d) => d.source_url)
        .sort(),
    ).toEqual([site.url(paths.refunds), site.url(paths.shipping)].sort());
  });

  it("removes the document of a gone page at once when the source says so, and never one uploaded by hand", async () => {
    const agent = newAgent("Sync remove");
    const { sitemap } = pagesFor({ refunds: REFUNDS, shipping: SHIPPING });
    // The same text uploaded by hand first: the page makes no document of its own.
    const manual = await ingest(agent.id, "shipping-by-hand.html", site.article("shipping", SHIPPING));
    const source = sitemapSource(agent.id, sitemap, "remove");
    const first = await sync(agent.id, source.id);
    expect(counts(first)).toMatchObject({ added: 1, unchanged: 1 });
    site.sitemap([], new URL(sitemap).pathname);
    const r = await sync(agent.id, source.id);
    expect(counts(r)).toMatchObject({ removed: 2, proposed: 0 });
    expect(ready(agent.id).map((d) => d.id)).toEqual([manual.document_id]);
    expect(sourcePages(source.id)).toEqual([]);
  });

  it("counts a failed page with its reason and keeps its document; the other pages go on", async () => {
    const agent = newAgent("Sync failures");
    const { prefix, paths, sitemap } = pagesFor({ refunds: REFUNDS, shipping: SHIPPING, password: PASSWORD });
    const source = sitemapSource(agent.id, sitemap);
    await sync(agent.id, source.id);
    const kept = ready(agent.id)
      .map((d) => d.id)
      .sort();
    site.pages.set(paths.refunds, { status: 500, body: "oops" });
    site.pages.set(paths.shipping, { hang: true });
    // A page that sends the fetcher to a loopback name not on the allow list.
    const secret = `${prefix}/secret.html`;
    site.pages.set(secret, { body: site.article("secret", "internal only") });
    site.pages.set(`${prefix}/moved.html`, { redirect: `http://localhost:${new URL(site.origin).port}${secret}` });
    site.sitemap([...Object.values(paths), `${prefix}/moved.html`], new URL(sitemap).pathname);
    site.pages.set(paths.password, { body: site.article("password", `${PASSWORD} Codes expire after ten minutes.`) });

    const r = await sync(agent.id, source.id);
    expect(r.status).toBe("done");
    expect(counts(r)).toEqual({ seen: 4, added: 0, changed: 1, removed: 0, proposed: 0, unchanged: 0, failed: 3 });
    const reasons = Object.fromEntries(r.failures.map((f) => [new URL(f.url).pathname, f.reason]));
    expect(reasons[paths.refunds]).toBe("answered HTTP 500");
    expect(reasons[paths.shipping]).toMatch(/no answer within/i);
    expect(reasons[`${prefix}/moved.html`]).toMatch(/localhost/);
    expect(site.requests.filter((q) => q.path === secret)).toEqual([]);
    // The failed pages keep their documents; the edited one was replaced.
    const now = ready(agent.id);
    expect(now).toHaveLength(3);
    expect(
      now
        .filter((d) => kept.includes(d.id))
        .map((d) => d.source_url)
        .sort(),
    ).toEqual([site.url(paths.refunds), site.url(paths.shipping)].sort());
    expect(sourcePages(source.id).find((p) => p.url === site.url(paths.refunds))!.error).toBe("answered HTTP 500");
  });

  it("fails the whole sync and removes nothing when the sitemap cannot be read", async () => {
    const agent = newAgent("Sync sitemap down");
    const { sitemap } = pagesFor({ refunds: REFUNDS });
    const source = sitemapSource(agent.id, sitemap, "remove");
    await sync(agent.id, source.id);
    site.pages.set(new URL(sitemap).pathname, { status: 503 });
    const r = await sync(agent.id, source.id);
    expect(r.status).toBe("failed");
    expect(r.error).toMatch(/^The sitemap could not be read, so nothing was changed: .*503/);
    expect(ready(agent.id)).toHaveLength(1);
    site.pages.set(new URL(sitemap).pathname, { body: "<html>not a sitemap</html>" });
    expect((await sync(agent.id, source.id)).error).toMatch(/not a sitemap/);
    expect(ready(agent.id)).toHaveLength(1);
  });

  it("follows a sitemap index, and syncs a list of page URLs", async () => {
    const agent = newAgent("Sync index");
    const a = pagesFor({ refunds: REFUNDS });
    const b = pagesFor({ shipping: SHIPPING });
    const index = `/index${n}.xml`;
    site.pages.set(index, {
      type: "application/xml",
      body: `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${a.sitemap}</loc></sitemap><sitemap><loc>${b.sitemap}</loc></sitemap></sitemapindex>`,
    });
    const fromIndex = sitemapSource(agent.id, site.url(index));
    expect(counts(await sync(agent.id, fromIndex.id))).toMatchObject({ seen: 2, added: 2 });

    const other = newAgent("Sync list");
    const list = createSource(
      other.id,
      sourceCreateSchema.parse({ urls: [site.url(a.paths.refunds), site.url(b.paths.shipping), site.url("/nowhere.html")] }),
    );
    const r = await sync(other.id, list.id);
    expect(counts(r)).toMatchObject({ seen: 3, added: 2, failed: 1 });
    expect(r.failures).toEqual([{ url: site.url("/nowhere.html"), reason: "answered HTTP 404" }]);
    // Each agent sees its own documents only.
    expect(ready(other.id).every((d) => d.agent_id === other.id)).toBe(true);
    expect(() => getSource(agent.id, list.id)).toThrow(/not found/);
  });

  it("runs one sync of a source at a time; a sync cut off by a stop is failed and the next one finishes the job", async () => {
    const agent = newAgent("Sync once");
    const { sitemap } = pagesFor({ refunds: REFUNDS, shipping: SHIPPING });
    const source = sitemapSource(agent.id, sitemap);
    const { done } = startSourceSync(agent.id, source.id, { fetcher, ratePerSecond: 0 });
    await expect(syncSource(agent.id, source.id, { fetcher })).rejects.toThrow(/running already/);
    expect(() => deleteSource(agent.id, source.id)).toThrow(/running; delete the source once it has finished/);
    await done;

    // A record left running, as after a kill: failed at the next start, and a new sync goes ahead.
    const cut = startSync(source.id, "manual")!;
    expect(failInterruptedSyncs()).toBeGreaterThanOrEqual(1);
    expect(recentSyncs(source.id).find((s) => s.id === cut.id)).toMatchObject({
      status: "failed",
      error: expect.stringMatching(/stopped/),
    });
    expect(counts(await sync(agent.id, source.id))).toMatchObject({ unchanged: 2, failed: 0 });
  });

  it("starts the syncs whose interval has passed, by the clock it is given", async () => {
    const agent = newAgent("Sync schedule");
    const { sitemap } = pagesFor({ refunds: REFUNDS });
    const source = createSource(agent.id, sourceCreateSchema.parse({ sitemap, interval_minutes: 60 }));
    const manual = createSource(agent.id, sourceCreateSchema.parse({ sitemap }));
    const t0 = new Date();
    expect(dueSources(t0).map((s) => s.id)).toContain(source.id);
    expect(dueSources(t0).map((s) => s.id)).not.toContain(manual.id);
    await sync(agent.id, source.id);
    const started = Date.parse(recentSyncs(source.id)[0]!.started_at);
    expect(dueSources(new Date(started + 59 * 60_000)).map((s) => s.id)).not.toContain(source.id);
    expect(dueSources(new Date(started + 60 * 60_000)).map((s) => s.id)).toContain(source.id);
    // Started on schedule, it is recorded as such; a second look finds it running, not due.
    const at = new Date(started + 60 * 60_000);
    expect(startDueSyncs(at)).toContain(source.id);
    expect(dueSources(at).map((s) => s.id)).not.toContain(source.id);
    expect(recentSyncs(source.id)[0]!.trigger).toBe("schedule");
  });
});
