import { createHash } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import * as search from "@/pages/api/agents/[id]/documents/search";
import { call, filesForm } from "@/test/http";
import { enc, newAgent, vectorsOf } from "@/test/helpers";
import { indexExtractedText, ingestFile } from "@/lib/ingest/pipeline";
import { writeChunks } from "@/lib/ingest/write-chunks";
import { chunkText } from "@/lib/core/chunking";
import { listDocuments } from "@/lib/db/documents";
import { db } from "@/lib/db/client";
import { readVectorRuns } from "@/lib/db/chunk-vectors";
import { embedder } from "@/lib/embeddings/configured";
import * as bulk from "./agents/[id]/documents/metadata/route";
import * as document from "./agents/[id]/documents/[docId]/route";
import * as documents from "./agents/[id]/documents/route";

// Metadata as a user sets it: at upload, from the file itself, by PATCH and in bulk; listed,
// counted (facets) and filtered, and never a reason to re-embed.

const SETTINGS = { chunkSize: 800, chunkOverlap: 100 };

let agentId: string;
beforeAll(() => {
  agentId = String(newAgent("metadata").id);
});

const upload = (files: [string, string][], fields: Record<string, string> = {}) =>
  call(documents.POST, { body: filesForm(files, fields), params: { id: agentId } });
const list = async (filter?: unknown) =>
  (
    await call(documents.GET, {
      method: "GET",
      params: { id: agentId },
      url: filter ? `?filter=${encodeURIComponent(JSON.stringify(filter))}` : "",
    })
  ).body;
const rows = () => (db().prepare("SELECT COUNT(*) AS n FROM documents WHERE agent_id = ?").get(Number(agentId)) as { n: number }).n;

describe("metadata at upload", () => {
  it("the metadata field applies to every file of the request, over what a file says of itself", async () => {
    const res = await upload(
      [
        [
          "guide.md",
          "---\nproduct: router\nfirmware: 3\ntags: [setup, wifi]\nlocale: en\n---\n# Router setup\n\nPlug the router in and wait for the light.",
        ],
        [
          "page.html",
          '<html><head><meta name="product" content="modem"><meta name="keywords" content="dsl, cable"><meta name="viewport" content="width=device-width"></head><body><p>Modem lights explained in full.</p></body></html>',
        ],
      ],
      { metadata: JSON.stringify({ locale: "de", audience: "support" }) },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const docs = (await list()).documents as { filename: string; metadata: Record<string, unknown> }[];
    const guide = docs.find((d) => d.filename === "guide.md")!;
    const page = docs.find((d) => d.filename === "page.html")!;
    expect(guide.metadata).toEqual({ product: "router", firmware: 3, tags: ["setup", "wifi"], locale: "de", audience: "support" });
    expect(page.metadata).toEqual({ product: "modem", keywords: ["dsl", "cable"], locale: "de", audience: "support" });
    // The front matter is metadata, not text: no chunk holds it.
    const text = db().prepare("SELECT text FROM documents WHERE agent_id = ? AND filename = 'guide.md'").get(Number(agentId)) as {
      text: string;
    };
    expect(text.text.startsWith("# Router setup")).toBe(true);
  });

  it("bad metadata is a 422 naming the key, and writes no rows and no vectors", async () => {
    const before = rows();
    for (const [metadata, named] of [
      ['{"product": {"nested": 1}}', "product"],
      ['{"filename": "x"}', "filename"],
      ['{"bad key!": 1}', "bad key!"],
      ["[1, 2]", "object"],
      ["{not json", "JSON"],
      ['{"tags": ["a", 3, {}]}', "tags"],
    ]) {
      const res = await upload([["new-one.txt", "A new article about cables."]], { metadata });
      expect(res.status, metadata).toBe(422);
      expect(res.body.error.message).toContain(named);
    }
    expect(rows()).toBe(before);
    const collection = await import("@/lib/vector-store/client").then((m) => m.collectionFor(embedder()));
    const held = await collection.get({ where: { agent_id: Number(agentId) } });
    const docs = (await list()).documents as { id: number; chunk_count: number }[];
    expect(held.ids.length).toBe(docs.reduce((n, d) => n + d.chunk_count, 0));
  });

  it("a new version keeps the keys of the one it replaces, with its own over them", async () => {
    const res = await upload([["guide.md", "---\nfirmware: 4\n---\n# Router setup\n\nA second version of the router guide."]]);
    expect(res.status).toBe(201);
    const guide = ((await list()).documents as { filename: string; status: string; metadata: Record<string, unknown> }[]).find(
      (d) => d.filename === "guide.md" && d.status === "ready",
    )!;
    expect(guide.metadata).toEqual({ product: "router", firmware: 4, tags: ["setup", "wifi"], locale: "de", audience: "support" });
  });
});

describe("metadata edited", () => {
  const docId = async (filename: string) =>
    ((await list()).documents as { id: number; filename: string; status: string }[]).find(
      (d) => d.filename === filename && d.status === "ready",
    )!.id;

  it("PATCH sets keys and null removes one, without re-embedding; the next filtered search sees it", async () => {
    const id = await docId("page.html");
    const model = embedder().model;
    // Resolved (and kept) before the change: the change must show in the next search with it.
    const modem = () => call(search.POST, { json: { query: "modem lights", filter: { product: "modem" } }, params: { id: agentId } });
    expect((await modem()).body.filter_matched_documents).toBe(1);
    const vectorsBefore = await vectorsOf(Number(agentId), id);
    const copyBefore = readVectorRuns([id], model).map((r) => Array.from(r.vectors));
    const res = await call(document.PATCH, {
      method: "PATCH",
      json: { metadata: { product: "gateway", keywords: null, released: "2026-05-01" } },
      params: { id: agentId, docId: String(id) },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.metadata).toEqual({ product: "gateway", locale: "de", audience: "support", released: "2026-05-01" });
    // The same vectors, in Chroma and in the app's copy: a metadata change is a row's update.
    expect(await vectorsOf(Number(agentId), id)).toEqual(vectorsBefore);
    expect(readVectorRuns([id], model).map((r) => Array.from(r.vectors))).toEqual(copyBefore);
    const found = await call(search.POST, { json: { query: "modem lights", filter: { product: "gateway" } }, params: { id: agentId } });
    expect(found.body.filter_matched_documents).toBe(1);
    expect(found.body.results.every((r: { document_id: number }) => r.document_id === id)).toBe(true);
    expect((await modem()).body).toMatchObject({ results: [], filter_matched_documents: 0 });
  });

  it("PATCH refuses a bad value or a built-in key with a 422, and changes nothing", async () => {
    const id = await docId("page.html");
    const before = (await list()).documents.find((d: { id: number }) => d.id === id).metadata;
    for (const metadata of [{ type: "pdf" }, { product: "" }, { product: [] as string[], x: { y: 1 } }, "router"]) {
      const res = await call(document.PATCH, { method: "PATCH", json: { metadata }, params: { id: agentId, docId: String(id) } });
      expect(res.status, JSON.stringify(metadata)).toBe(422);
    }
    expect((await list()).documents.find((d: { id: number }) => d.id === id).metadata).toEqual(before);
  });

  it("bulk: one key set on many documents, all or none", async () => {
    const ids = ((await list()).documents as { id: number; status: string }[]).filter((d) => d.status === "ready").map((d) => d.id);
    const refused = await call(bulk.POST, {
      json: { document_ids: [...ids, 987654], metadata: { reviewed: true } },
      params: { id: agentId },
    });
    expect(refused.status).toBe(404);
    expect(((await list()).documents as { metadata: Record<string, unknown> }[]).some((d) => "reviewed" in d.metadata)).toBe(false);
    const res = await call(bulk.POST, { json: { document_ids: ids, metadata: { reviewed: true } }, params: { id: agentId } });
    expect(res.status).toBe(200);
    expect(res.body.documents).toHaveLength(ids.length);
    const filtered = await list({ reviewed: true });
    expect(filtered.filter_matched_documents).toBe(ids.length);
  });

  it("facets count ready documents by key and value; the browser's filter lists the matching ones", async () => {
    const facets = (await call(bulk.GET, { method: "GET", params: { id: agentId } })).body;
    expect(facets.built_in).toContain("filename");
    const locale = facets.facets.find((f: { key: string }) => f.key === "locale");
    expect(locale).toMatchObject({ key: "locale", documents: 2, values: [{ value: "de", documents: 2 }] });
    const tags = facets.facets.find((f: { key: string }) => f.key === "tags");
    expect(tags.values).toEqual(
      expect.arrayContaining([
        { value: "setup", documents: 1 },
        { value: "wifi", documents: 1 },
      ]),
    );
    const reviewed = facets.facets.find((f: { key: string }) => f.key === "reviewed");
    expect(reviewed.values).toEqual([{ value: true, documents: 2 }]);

    const routers = await list({ product: "router" });
    expect(routers.documents.map((d: { filename: string }) => d.filename)).toEqual(expect.arrayContaining(["guide.md"]));
    expect(routers.documents.every((d: { metadata: { product: string } }) => d.metadata.product === "router")).toBe(true);
    const unknown = await call(documents.GET, {
      method: "GET",
      params: { id: agentId },
      url: `?filter=${encodeURIComponent(JSON.stringify({ colour: "red" }))}`,
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.code).toBe("unknown_filter_key");
  });
});

describe("metadata and a new version at once", () => {
  it("a change made while the next version of the document is indexing is kept by that version", async () => {
    const agentId = newAgent("metadata race").id;
    const first = await ingestFile(
      agentId,
      { filename: "a.md", bytes: enc("Router reset: hold the button."), metadata: { product: "router" } },
      SETTINGS,
    );
    expect(first.status).toBe("ready");
    // The next version's vectors wait for the test: its row exists, indexing, while the change comes.
    let started!: () => void;
    const writing = new Promise<void>((r) => (started = r));
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const text = "Router reset: hold the button for ten seconds.";
    const next = indexExtractedText(
      agentId,
      { filename: "a.md", type: "md", sha256: createHash("sha256").update(text).digest("hex"), bytes: text.length, text, source_url: null },
      SETTINGS,
      undefined,
      {
        chunks: chunkText(text, SETTINGS.chunkSize, SETTINGS.chunkOverlap),
        write: async (...args) => {
          started();
          await gate;
          return writeChunks(...args);
        },
      },
    );
    await writing;
    const patched = await call(document.PATCH, {
      method: "PATCH",
      json: { metadata: { product: "modem", team: "support" } },
      params: { id: String(agentId), docId: String(first.document_id) },
    });
    expect(patched.status).toBe(200);
    release();
    const done = await next;
    expect(done.outcome).toBe("replaced");
    expect(listDocuments(agentId).find((d) => d.status === "ready")).toMatchObject({
      id: done.document_id,
      metadata: { product: "modem", team: "support" },
    });
  });

  it("the same file again with other metadata changes the metadata, not the document", async () => {
    const agentId = String(newAgent("metadata again").id);
    const send = (metadata: string) =>
      call(documents.POST, { body: filesForm([["b.txt", "Cables and ports."]], { metadata }), params: { id: agentId } });
    const once = await send('{"team": "support"}');
    const again = await send('{"team": "sales"}');
    expect(again.body.documents[0]).toMatchObject({ outcome: "duplicate", document_id: once.body.documents[0].document_id });
    expect(again.body.documents[0].message).toContain("its metadata was updated");
    expect(listDocuments(Number(agentId))[0].metadata).toEqual({ team: "sales" });
    expect((await send('{"team": "sales"}')).body.documents[0].message).toContain("nothing was changed");
  });
});
