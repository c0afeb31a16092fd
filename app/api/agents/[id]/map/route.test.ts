import { describe, expect, it } from "vitest";
import { call } from "@/test/http";
import { ARTICLES, ingest, newAgent } from "@/test/helpers";
import { requiredRole } from "@/lib/auth/request-rules";
import { readyChunkCounts } from "@/lib/db/documents";
import { embedder } from "@/lib/embeddings/configured";
import { documentSearchTool } from "@/lib/retrieval/retrieve";
import { computeMap } from "@/lib/map/compute";
import { mapComputation } from "@/lib/map/view";
import * as map from "./route";
import * as chunk from "./chunk/route";

type Point = { document_id: number; chunk_index: number; filename: string; x: number; y: number };

const get = (id: number) => call(map.GET, { method: "GET", params: { id: String(id) } });

/** GETs the map until the computation it started is over, then once more. */
async function settled(id: number) {
  const first = await get(id);
  await mapComputation(id);
  return { first, then: await get(id) };
}

/** Every ready chunk of the agent, as "document#index". */
const readyChunks = (agentId: number) =>
  readyChunkCounts(agentId, embedder().model)
    .flatMap((d) => Array.from({ length: d.chunk_count }, (_, i) => `${d.id}#${i}`))
    .sort();
const keys = (chunks: Point[]) => chunks.map((c) => `${c.document_id}#${c.chunk_index}`).sort();

/** A long article: several chunks at a small chunk size. */
const long = (topic: string) => Array.from({ length: 12 }, (_, i) => `${topic} paragraph ${i}: ${topic} details number ${i}.`).join("\n\n");

describe("map API", () => {
  it("answers 202 with progress while it computes, then every ready chunk's point; the same seed gives the same points", async () => {
    const agent = newAgent("Map API");
    for (const [name, text] of Object.entries(ARTICLES)) await ingest(agent.id, `${name}.md`, text);
    await ingest(agent.id, "shipping.md", long("shipping"), 120, 20);
    await documentSearchTool(agent.id, "how fast does support answer", 3);

    const { first, then } = await settled(agent.id);
    expect(first).toMatchObject({ status: 202, body: { status: "computing", progress: { fraction: expect.any(Number) } } });
    expect(then).toMatchObject({ status: 200, body: { status: "ready", stale: false, progress: null, seed: 42, left_out: 0 } });
    const body = then.body as { chunks: Point[]; documents: { id: number; filename: string }[]; questions: { text: string }[] };
    expect(keys(body.chunks)).toEqual(readyChunks(agent.id));
    expect(body.chunks.length).toBeGreaterThan(8);
    for (const c of body.chunks) {
      expect(Math.abs(c.x)).toBeLessThanOrEqual(1);
      expect(Math.abs(c.y)).toBeLessThanOrEqual(1);
      expect(c.filename).toBe(body.documents.find((d) => d.id === c.document_id)!.filename);
    }
    expect(body.questions).toEqual([
      expect.objectContaining({ text: "how fast does support answer", gap: false, status: "open", x: expect.any(Number) }),
    ]);

    // Computed again from the same content and seed: the same points.
    const again = await computeMap(agent.id);
    expect(Array.from(again.chunkPoints).map((v) => Math.round(v * 1e4) / 1e4)).toEqual(body.chunks.flatMap((c) => [c.x, c.y]));
    expect((await get(agent.id)).body.chunks).toEqual(body.chunks);
  });

  it("serves the old map marked stale while a changed corpus is computed again, then the new one", async () => {
    const agent = newAgent("Map change");
    await ingest(agent.id, "sla.md", ARTICLES.sla);
    await ingest(agent.id, "refunds.md", ARTICLES.refunds);
    const before = (await settled(agent.id)).then.body as { chunks: Point[] };
    expect(before.chunks.map((c) => c.filename).sort()).toEqual(["refunds.md", "sla.md"]);

    await ingest(agent.id, "password.md", ARTICLES.password);
    const stale = await get(agent.id);
    expect(stale).toMatchObject({ status: 200, body: { status: "ready", stale: true, progress: { fraction: expect.any(Number) } } });
    expect(stale.body.chunks).toEqual(before.chunks);

    await mapComputation(agent.id);
    const after = await get(agent.id);
    expect(after.body).toMatchObject({ status: "ready", stale: false });
    expect((after.body.chunks as Point[]).map((c) => c.filename).sort()).toEqual(["password.md", "refunds.md", "sla.md"]);
  });

  it("never shows another agent's chunks", async () => {
    const a = newAgent("Map A");
    const b = newAgent("Map B");
    await ingest(a.id, "sla.md", ARTICLES.sla);
    await ingest(a.id, "invoices.md", ARTICLES.invoices);
    await ingest(b.id, "refunds.md", ARTICLES.refunds);
    const mapA = (await settled(a.id)).then.body as { chunks: Point[] };
    const mapB = (await settled(b.id)).then.body as { chunks: Point[] };
    expect(keys(mapA.chunks)).toEqual(readyChunks(a.id));
    expect(keys(mapB.chunks)).toEqual(readyChunks(b.id));
    expect(mapB.chunks.map((c) => c.filename)).toEqual(["refunds.md"]);
  });

  it("gives a chunk's text for the hover, only the agent's own", async () => {
    const a = newAgent("Map hover A");
    const b = newAgent("Map hover B");
    const doc = await ingest(a.id, "sla.md", ARTICLES.sla);
    const documentId = String(doc.document_id);
    const url = `?document_id=${documentId}&chunk_index=0`;
    expect(await call(chunk.GET, { method: "GET", url, params: { id: String(a.id) } })).toMatchObject({
      status: 200,
      body: { filename: "sla.md", chunk_index: 0, text: expect.stringContaining("Premium customers") },
    });
    expect(await call(chunk.GET, { method: "GET", url, params: { id: String(b.id) } })).toMatchObject({ status: 404 });
  });

  it("counts for each chunk the agent's own calls that returned it in the last 30 days, not the inspector's", async () => {
    const search = await import("@/pages/api/agents/[id]/documents/search");
    const inspect = await import("@/app/api/agents/[id]/inspect/route");
    const agent = newAgent("Map sizes");
    for (const [name, text] of Object.entries({ "sla.md": ARTICLES.sla, "refunds.md": long("refund"), "password.md": long("password") }))
      await ingest(agent.id, name, text, 200, 0);
    const params = { id: String(agent.id) };
    const returned = new Map<string, number>();
    for (const [query, top_k] of [
      ["premium support first response", 2],
      ["refund details", 3],
      ["refund paragraph 3", 1],
    ] as const) {
      const res = await call(search.POST, { params, json: { query, top_k } });
      for (const r of res.body.results as { document_id: number; chunk_index: number }[]) {
        const key = `${r.document_id}#${r.chunk_index}`;
        returned.set(key, (returned.get(key) ?? 0) + 1);
      }
    }
    await call(inspect.POST, { params, json: { query: "password details", top_k: 5 } });
    const body = (await settled(agent.id)).then.body as { chunks: (Point & { retrieved: number })[]; retrieved_days: number };
    expect(body.retrieved_days).toBe(30);
    for (const c of body.chunks)
      expect(c.retrieved, `${c.filename} ${c.chunk_index}`).toBe(returned.get(`${c.document_id}#${c.chunk_index}`) ?? 0);
    expect(body.chunks.filter((c) => c.retrieved > 0).length).toBe(returned.size);
    expect(body.chunks.filter((c) => c.filename === "password.md").every((c) => c.retrieved === 0)).toBe(true);
  });

  it("maps an agent without documents as empty", async () => {
    const agent = newAgent("Map empty");
    const { then } = await settled(agent.id);
    expect(then).toMatchObject({ status: 200, body: { status: "ready", stale: false, chunks: [], questions: [], documents: [] } });
  });

  it("lets viewers read it, and answers 404 for an unknown agent", async () => {
    expect(requiredRole("GET", "/api/agents/3/map", false)).toBe("viewer");
    expect(await call(map.GET, { method: "GET", params: { id: "99999" } })).toMatchObject({ status: 404 });
  });
});
