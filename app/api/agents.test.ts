import { describe, expect, it } from "vitest";
import { call, filesForm } from "@/test/http";
import { ARTICLES } from "@/test/helpers";
import * as agents from "./agents/route";
import * as agent from "./agents/[id]/route";
import * as documents from "./agents/[id]/documents/route";
import * as document from "./agents/[id]/documents/[docId]/route";

const create = (name: string, tools = ["document_search"]) => call(agents.POST, { json: { name, tools } });

describe("agents API", () => {
  it("creates, lists, renames, and deletes an agent", async () => {
    const created = await create("Billing bot");
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: expect.any(Number), name: "Billing bot", tools: ["document_search"] });
    const id = String(created.body.id);

    const list = await call(agents.GET, { method: "GET" });
    expect(list.body.agents.map((a: { name: string }) => a.name)).toContain("Billing bot");

    const renamed = await call(agent.PATCH, { method: "PATCH", json: { name: "Billing helper", tools: [] }, params: { id } });
    expect(renamed).toMatchObject({ status: 200, body: { name: "Billing helper", tools: [] } });
    // A change of another setting leaves the tools as they are (the search tool stays off).
    const moded = await call(agent.PATCH, { method: "PATCH", json: { retrieval_mode: "hybrid" }, params: { id } });
    expect(moded).toMatchObject({ status: 200, body: { name: "Billing helper", tools: [], retrieval_mode: "hybrid" } });

    expect((await call(agent.DELETE, { method: "DELETE", params: { id } })).status).toBe(204);
    expect((await call(agent.GET, { method: "GET", params: { id } })).status).toBe(404);
  });

  it("answers 409 for a duplicate name, 422 for a bad body, 400 for broken JSON, 404 for unknown ids", async () => {
    await create("Unique name");
    expect(await create("unique NAME")).toMatchObject({ status: 409, body: { error: { code: "conflict" } } });
    expect((await create("")).status).toBe(422);
    expect((await create("x", ["shell"])).status).toBe(422);
    const broken = await call(agents.POST, { body: "{not json", headers: { "content-type": "application/json" } });
    expect(broken).toMatchObject({ status: 400, body: { error: { code: "invalid_json" } } });
    expect((await call(agent.GET, { method: "GET", params: { id: "99999" } })).status).toBe(404);
    expect((await call(agent.GET, { method: "GET", params: { id: "abc" } })).status).toBe(404);
    expect((await call(agent.PATCH, { method: "PATCH", json: { name: "x" }, params: { id: "99999" } })).status).toBe(404);
  });
});

describe("documents API", () => {
  it("uploads several files, reports each, lists, shows chunks and deletes", async () => {
    const { body: a } = await create("Docs agent");
    const id = String(a.id);
    const form = filesForm([
      ["sla.md", ARTICLES.sla],
      ["refunds.txt", ARTICLES.refunds],
      ["image.txt", new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])],
    ]);
    const up = await call(documents.POST, { body: form, params: { id } });
    expect(up.status).toBe(201);
    expect(up.body.documents.map((d: { filename: string; status: string }) => [d.filename, d.status])).toEqual([
      ["sla.md", "ready"],
      ["refunds.txt", "ready"],
      ["image.txt", "rejected"],
    ]);
    expect(up.body.documents[0]).toMatchObject({ document_id: expect.any(Number), chunk_count: 1 });

    const list = await call(documents.GET, { method: "GET", params: { id } });
    expect(list.body.documents).toHaveLength(2);

    const docId = String(up.body.documents[0].document_id);
    const shown = await call(document.GET, { method: "GET", params: { id, docId } });
    expect(shown.body).toMatchObject({ filename: "sla.md", text: ARTICLES.sla, chunks: [{ index: 0, start: 0, text: ARTICLES.sla }] });

    expect((await call(document.DELETE, { method: "DELETE", params: { id, docId } })).status).toBe(204);
    expect((await call(document.GET, { method: "GET", params: { id, docId } })).status).toBe(404);
  });

  it("answers 422 when every file is rejected, 413 when too large, 422 for bad chunk settings", async () => {
    const { body: a } = await create("Rejecting agent");
    const id = String(a.id);
    const bad = await call(documents.POST, { body: filesForm([["run.exe", "MZ"]]), params: { id } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.message).toMatch(/run\.exe/);

    const big = await call(documents.POST, { body: filesForm([["big.txt", "a".repeat(21 * 1024 * 1024)]]), params: { id } });
    expect(big.status).toBe(413);

    const settings = await call(documents.POST, {
      body: filesForm([["a.txt", "text"]], { chunk_size: "100", chunk_overlap: "100" }),
      params: { id },
    });
    expect(settings.status).toBe(422);
    expect(settings.body.error.message).toMatch(/smaller than chunk_size/);
    const strategy = await call(documents.POST, { body: filesForm([["a.txt", "text"]], { chunk_strategy: "sentences" }), params: { id } });
    expect(strategy.status).toBe(422);
    expect(strategy.body.error.message).toMatch(/chunk_strategy must be one of: boundary, fixed/);
    const none = await call(documents.POST, { body: filesForm([]), params: { id } });
    expect(none.status).toBe(422);

    const list = await call(documents.GET, { method: "GET", params: { id } });
    expect(list.body.documents).toEqual([]);
  });

  it("records the chunking strategy of each upload, boundary unless fixed is asked for", async () => {
    const { body: a } = await create("Strategy agent");
    const id = String(a.id);
    const text = "Refunds reach the card in five days. Gift cards cannot be refunded at all, ever.";
    const byDefault = await call(documents.POST, {
      body: filesForm([["a.txt", text]], { chunk_size: "40", chunk_overlap: "0" }),
      params: { id },
    });
    const fixed = await call(documents.POST, {
      body: filesForm([["b.txt", `${text} Again.`]], { chunk_size: "40", chunk_overlap: "0", chunk_strategy: "fixed" }),
      params: { id },
    });
    expect([byDefault.status, fixed.status]).toEqual([201, 201]);
    const list = (await call(documents.GET, { method: "GET", params: { id } })).body.documents as {
      filename: string;
      chunk_strategy: string;
    }[];
    expect(Object.fromEntries(list.map((d) => [d.filename, d.chunk_strategy]))).toEqual({ "a.txt": "boundary", "b.txt": "fixed" });
    const docId = (n: number) => String((n === 0 ? byDefault : fixed).body.documents[0].document_id);
    const chunks = async (n: number) =>
      ((await call(document.GET, { method: "GET", params: { id, docId: docId(n) } })).body.chunks as { text: string }[]).map((c) => c.text);
    expect(await chunks(0)).toEqual(["Refunds reach the card in five days.", "Gift cards cannot be refunded at all,", "ever."]);
    expect((await chunks(1))[0]).toBe("Refunds reach the card in five days. Gif");
  });

  it("answers 404 for a document of another agent", async () => {
    const { body: a } = await create("Owner agent");
    const { body: b } = await create("Other agent");
    const up = await call(documents.POST, { body: filesForm([["sla.md", ARTICLES.sla]]), params: { id: String(a.id) } });
    const docId = String(up.body.documents[0].document_id);
    expect((await call(document.GET, { method: "GET", params: { id: String(b.id), docId } })).status).toBe(404);
    expect((await call(document.DELETE, { method: "DELETE", params: { id: String(b.id), docId } })).status).toBe(404);
    expect((await call(document.GET, { method: "GET", params: { id: String(a.id), docId } })).status).toBe(200);
  });
});

describe("GET /api/health", () => {
  it("answers 200 when Chroma answers and a probe embedding and query succeed", async () => {
    const { GET } = await import("./health/route");
    const { useHealthDeadline } = await import("@/lib/index-upkeep/health");
    // Healthy however long a busy machine's Chroma takes to answer (within CHROMA_TIMEOUT_MS): the 3 s probe deadline is not under test here.
    const undo = useHealthDeadline(Number.POSITIVE_INFINITY);
    try {
      const res = await GET();
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ ok: true, chroma: { ok: true }, embedder: { ok: true, dimension: expect.any(Number) } });
    } finally {
      undo();
    }
  });
});
