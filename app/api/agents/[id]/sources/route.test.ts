import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, filesForm } from "@/test/http";
import { newAgent } from "@/test/helpers";
import { startFixtureSite, type FixtureSite } from "@/test/fixture-site";
import { listDocuments } from "@/lib/db/documents";
import { listSources } from "@/lib/db/sources";
import { requiredRole } from "@/lib/auth/request-rules";
import * as document from "../documents/[docId]/route";
import * as documents from "../documents/route";
import * as removals from "./[sourceId]/removals/route";
import * as sync from "./[sourceId]/sync/route";
import * as source from "./[sourceId]/route";
import * as sources from "./route";

// Read by env() on first use, which comes after these lines: the route handlers fetch from the fixture site.
process.env.FETCH_RATE_PER_S = "0";

let site: FixtureSite;
beforeAll(async () => {
  site = await startFixtureSite();
  // Its host and port: a bare name would stand for port 80 only.
  process.env.FETCH_ALLOW_HOSTS = new URL(site.origin).host;
  site.pages.set("/a.html", { body: site.article("Refunds", "A full refund is available within 30 days of purchase.") });
  site.pages.set("/b.html", { body: site.article("Shipping", "Orders ship within two business days.") });
  site.sitemap(["/a.html", "/b.html"]);
});
afterAll(() => site.close());

const ready = (agentId: number) => listDocuments(agentId).filter((d) => d.status === "ready");

describe("sources API", () => {
  it("adds a sitemap source, syncs it, lists it with its last sync, and proposes then removes a page that left", async () => {
    const agent = newAgent("Sources API");
    const id = String(agent.id);
    const created = await call(sources.POST, { json: { sitemap: site.url("/sitemap.xml") }, params: { id } });
    expect(created).toMatchObject({
      status: 201,
      body: { source: { kind: "sitemap", sitemap: site.url("/sitemap.xml"), on_removed: "propose", interval_minutes: null } },
    });
    const sourceId = String(created.body.source.id);

    const done = await call(sync.POST, { json: { wait: true }, params: { id, sourceId } });
    expect(done).toMatchObject({ status: 200, body: { sync: { status: "done", seen: 2, added: 2, failed: 0 } } });
    const listed = await call(sources.GET, { method: "GET", params: { id } });
    expect(listed.body.sources).toMatchObject([{ id: Number(sourceId), pages: 2, last_sync: { id: done.body.sync.id, added: 2 } }]);

    expect((await call(source.PATCH, { json: { interval_minutes: 60 }, params: { id, sourceId } })).body.source.interval_minutes).toBe(60);
    // Following other hosts: off unless asked for, set and cleared by PATCH, a bad value refused and nothing changed.
    expect(created.body.source.cross_host).toBe(false);
    expect((await call(source.PATCH, { json: { cross_host: true }, params: { id, sourceId } })).body.source).toMatchObject({
      cross_host: true,
      interval_minutes: 60,
    });
    const bad = await call(source.PATCH, { json: { cross_host: "yes", interval_minutes: 30 }, params: { id, sourceId } });
    expect(bad).toMatchObject({
      status: 422,
      body: { error: { code: "invalid_request", message: expect.stringMatching(/cross_host must be true or false/) } },
    });
    expect((await call(source.PATCH, { json: { cross_host: false }, params: { id, sourceId } })).body.source).toMatchObject({
      cross_host: false,
      interval_minutes: 60,
    });
    const other = await call(sources.POST, { json: { urls: [site.url("/a.html")], on_removed: "remove" }, params: { id } });
    expect(other.body.source).toMatchObject({ kind: "urls", urls: [site.url("/a.html")], sitemap: null });

    // b.html leaves the sitemap: proposed, kept, then removed by the removals call.
    site.sitemap(["/a.html"]);
    const second = await call(sync.POST, { params: { id, sourceId } });
    expect(second).toMatchObject({ status: 202, body: { sync: { status: "running" } } });
    let detail = await call(source.GET, { method: "GET", params: { id, sourceId } });
    while (detail.body.syncs[0].status === "running") {
      await new Promise((r) => setTimeout(r, 20));
      detail = await call(source.GET, { method: "GET", params: { id, sourceId } });
    }
    expect(detail.body.syncs[0]).toMatchObject({ status: "done", proposed: 1, unchanged: 1 });
    expect(detail.body.proposed_removals.map((p: { url: string }) => p.url)).toEqual([site.url("/b.html")]);
    expect(ready(agent.id)).toHaveLength(2);
    expect(await call(removals.POST, { json: { action: "remove", urls: "all" }, params: { id, sourceId } })).toMatchObject({
      status: 200,
      body: { removed: 1 },
    });
    expect(ready(agent.id).map((d) => d.source_url)).toEqual([site.url("/a.html")]);

    expect((await call(source.DELETE, { method: "DELETE", params: { id, sourceId } })).status).toBe(204);
    expect(listSources(agent.id).map((s) => s.kind)).toEqual(["urls"]);
    expect(ready(agent.id)).toHaveLength(1);
  });

  it("gives every page the source's metadata over its own meta tags, and a change of it reaches the documents at once", async () => {
    const agent = newAgent("Sources metadata");
    const id = String(agent.id);
    site.pages.set("/meta.html", {
      body: '<html><head><meta name="locale" content="de"><meta name="product" content="page"></head><body><article><h1>Reset</h1><p>Hold the reset button for ten seconds.</p></article></body></html>',
    });
    const refused = await call(sources.POST, { json: { urls: [site.url("/meta.html")], metadata: { type: "x" } }, params: { id } });
    expect(refused.status).toBe(422);
    expect(refused.body.error.message).toContain('"type" is a built-in field');
    const created = await call(sources.POST, { json: { urls: [site.url("/meta.html")], metadata: { product: "router" } }, params: { id } });
    expect(created.body.source.metadata).toEqual({ product: "router" });
    const sourceId = String(created.body.source.id);
    expect((await call(sync.POST, { json: { wait: true }, params: { id, sourceId } })).body.sync).toMatchObject({ added: 1 });
    expect(ready(agent.id).map((d) => d.metadata)).toEqual([{ locale: "de", product: "router" }]);
    const changed = await call(source.PATCH, { json: { metadata: { team: "support" } }, params: { id, sourceId } });
    expect(changed.body.source.metadata).toEqual({ team: "support" });
    // The key the source dropped goes, the page's own stays, the new one comes: nothing fetched again.
    expect(ready(agent.id).map((d) => d.metadata)).toEqual([{ locale: "de", team: "support" }]);
  });

  it("answers 422 for a bad source and 404 for another agent's, changing nothing", async () => {
    const agent = newAgent("Sources bad input");
    const id = String(agent.id);
    for (const json of [
      {},
      { sitemap: "ftp://example.test/sitemap.xml" },
      { sitemap: "http://user:secret@example.test/sitemap.xml" },
      { sitemap: site.url("/sitemap.xml"), urls: [site.url("/a.html")] },
      { urls: [] },
      { urls: ["not a url"] },
      { sitemap: site.url("/sitemap.xml"), on_removed: "delete" },
      { sitemap: site.url("/sitemap.xml"), interval_minutes: 1 },
    ]) {
      expect(await call(sources.POST, { json, params: { id } }), JSON.stringify(json)).toMatchObject({
        status: 422,
        body: { error: { code: "invalid_request" } },
      });
    }
    expect(listSources(agent.id)).toEqual([]);
    const mine = (await call(sources.POST, { json: { sitemap: site.url("/sitemap.xml") }, params: { id } })).body.source;
    const stranger = newAgent("Sources stranger");
    const theirs = { id: String(stranger.id), sourceId: String(mine.id) };
    expect((await call(source.GET, { method: "GET", params: theirs })).status).toBe(404);
    expect((await call(sync.POST, { json: {}, params: theirs })).status).toBe(404);
    expect((await call(source.DELETE, { method: "DELETE", params: theirs })).status).toBe(404);
    expect(await call(removals.POST, { json: { action: "remove", urls: ["x"] }, params: { id, sourceId: String(mine.id) } })).toMatchObject(
      { status: 422 },
    );
    expect(await call(removals.POST, { json: { action: "drop", urls: "all" }, params: { id, sourceId: String(mine.id) } })).toMatchObject({
      status: 422,
    });
    expect(listSources(agent.id)).toHaveLength(1);
  });

  it("keeps a folder's paths in document names when asked, and re-chunks a document", async () => {
    const agent = newAgent("Paths");
    const id = String(agent.id);
    const form = filesForm(
      [
        ["guides/setup.md", "# Setup\n\nInstall the desk app."],
        ["../top.md", "# Top\n\nThe top page."],
      ],
      { paths: "keep" },
    );
    const up = await call(documents.POST, { body: form, params: { id } });
    expect(up.status).toBe(201);
    expect(up.body.documents.map((d: { filename: string }) => d.filename)).toEqual(["guides/setup.md", "top.md"]);
    const plain = await call(documents.POST, { body: filesForm([["other/plain.md", "# Plain\n\nNo folders kept."]]), params: { id } });
    expect(plain.body.documents[0].filename).toBe("plain.md");
    expect(await call(documents.POST, { body: filesForm([["x.md", "# X\n\nx"]], { paths: "all" }), params: { id } })).toMatchObject({
      status: 422,
    });

    const setup = ready(agent.id).find((d) => d.filename === "guides/setup.md")!;
    const rechunked = await call(document.PATCH, { json: { chunk_size: 200, chunk_overlap: 20 }, params: { id, docId: String(setup.id) } });
    expect(rechunked).toMatchObject({
      status: 200,
      body: { document: { filename: "guides/setup.md", outcome: "replaced", status: "ready" } },
    });
    expect(ready(agent.id).find((d) => d.filename === "guides/setup.md")).toMatchObject({ chunk_size: 200, chunk_overlap: 20 });
    expect(
      await call(document.PATCH, { json: { chunk_size: 100, chunk_overlap: 100 }, params: { id, docId: String(setup.id) } }),
    ).toMatchObject({ status: 422 });
  });

  it("needs the editor role to add, change, sync or remove, and lets viewers read", () => {
    for (const path of ["/api/agents/1/sources", "/api/agents/1/sources/2/sync", "/api/agents/1/sources/2/removals"])
      expect(requiredRole("POST", path, false)).toBe("editor");
    expect(requiredRole("PATCH", "/api/agents/1/sources/2", false)).toBe("editor");
    expect(requiredRole("DELETE", "/api/agents/1/sources/2", false)).toBe("editor");
    expect(requiredRole("GET", "/api/agents/1/sources/2", false)).toBe("viewer");
  });
});
