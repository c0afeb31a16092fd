import { describe, expect, it } from "vitest";
import { getDocument, listDocuments } from "../db/documents";
import { documentChunks } from "../db/chunks";
import { searchAgentDocuments } from "../retrieval/retrieve";
import { ARTICLES, enc, ingest, newAgent, vectorsOf } from "../../test/helpers";
import { removeAgent, removeDocument } from "./remove";
import { ingestFile } from "./pipeline";

describe("ingest and search against a real Chroma and SQLite", () => {
  it("indexes a document into chunks with ids and metadata, and finds it", async () => {
    const agent = newAgent("ingest");
    const text = `${ARTICLES.sla}\n\n${"Filler about office plants and lunch menus. ".repeat(40)}`;
    const res = await ingest(agent.id, "sla.md", text, 300, 50);
    expect(res).toMatchObject({ outcome: "indexed", status: "ready", filename: "sla.md" });
    expect(res.chunk_count).toBeGreaterThan(3);

    const doc = getDocument(agent.id, res.document_id!);
    expect(doc).toMatchObject({ status: "ready", chunk_count: res.chunk_count, chunk_size: 300, chunk_overlap: 50, type: "md" });
    expect(doc.text).toBe(text.trimEnd());

    const vectors = await vectorsOf(agent.id, doc.id);
    expect(vectors.map((v) => v.id).sort()).toEqual(Array.from({ length: res.chunk_count }, (_, i) => `doc${doc.id}#${i}`).sort());
    // Chroma holds the vector and the ids a query filters on; the text and offsets are in SQLite.
    const first = vectors.find((v) => v.id === `doc${doc.id}#0`)!;
    expect(first.metadata).toEqual({ agent_id: agent.id, document_id: doc.id, chunk_index: 0 });
    expect(first.document).toBeNull();
    const rows = documentChunks(doc.id);
    expect(rows).toHaveLength(res.chunk_count);
    for (const r of rows) expect(r.text).toBe(doc.text.slice(r.start, r.end));
    // Cut at a boundary by default: the first chunk ends at a word, within the size.
    expect(doc.chunk_strategy).toBe("boundary");
    expect(rows[0]).toMatchObject({ chunk_index: 0, start: 0 });
    expect(rows[0].end).toBeLessThanOrEqual(300);
    expect(doc.text[rows[0].end]).toMatch(/\s/);

    const results = await searchAgentDocuments(agent.id, "support SLA response time", 3);
    expect(results).toHaveLength(3);
    expect(results[0]).toMatchObject({ document_id: doc.id, filename: "sla.md", chunk_index: 0 });
    expect(results[0].chunk_text.startsWith("Support SLA")).toBe(true);
    const scores = results.map((r) => r.score);
    expect([...scores].sort((a, b) => a - b)).toEqual(scores);
    expect(scores[0]).toBeGreaterThanOrEqual(0);
    expect(scores[0]).toBeLessThan(1);
  });

  it("returns fewer results when fewer chunks exist, and none for an agent without documents", async () => {
    const agent = newAgent("few");
    await ingest(agent.id, "refunds.txt", ARTICLES.refunds);
    expect(await searchAgentDocuments(agent.id, "refund", 10)).toHaveLength(1);
    expect(await searchAgentDocuments(newAgent("empty").id, "refund", 5)).toEqual([]);
  });

  it("never returns another agent's chunks", async () => {
    const a = newAgent("tenant a");
    const b = newAgent("tenant b");
    for (const [name, text] of Object.entries(ARTICLES)) {
      await ingest(a.id, `${name}-a.txt`, `${text} Tenant A edition.`);
      await ingest(b.id, `${name}-b.txt`, `${text} Tenant B edition.`);
    }
    const aDocs = new Set(listDocuments(a.id).map((d) => d.id));
    const bDocs = new Set(listDocuments(b.id).map((d) => d.id));
    for (const query of ["support SLA", "refund", "password reset", "invoice PDF", "Tenant B edition"]) {
      const forA = await searchAgentDocuments(a.id, query, 50);
      expect(forA).toHaveLength(aDocs.size);
      expect(forA.every((r) => aDocs.has(r.document_id) && r.filename.endsWith("-a.txt"))).toBe(true);
      const forB = await searchAgentDocuments(b.id, query, 50);
      expect(forB.every((r) => bDocs.has(r.document_id))).toBe(true);
    }
  });

  it("deletes a document's vectors and row, and nothing of other documents", async () => {
    const agent = newAgent("delete");
    const keep = await ingest(agent.id, "keep.txt", ARTICLES.refunds);
    const gone = await ingest(agent.id, "gone.txt", ARTICLES.password);
    await removeDocument(agent.id, gone.document_id!);
    expect(await vectorsOf(agent.id, gone.document_id!)).toEqual([]);
    expect(listDocuments(agent.id).map((d) => d.filename)).toEqual(["keep.txt"]);
    const results = await searchAgentDocuments(agent.id, "password reset", 5);
    expect(results.map((r) => r.filename)).toEqual(["keep.txt"]);
    expect(await vectorsOf(agent.id, keep.document_id!)).toHaveLength(1);
  });

  it("refuses to delete a document through another agent", async () => {
    const owner = newAgent("owner");
    const other = newAgent("other");
    const doc = await ingest(owner.id, "mine.txt", ARTICLES.sla);
    await expect(removeDocument(other.id, doc.document_id!)).rejects.toThrow(/not found/);
    expect(await vectorsOf(owner.id, doc.document_id!)).toHaveLength(1);
  });

  it("treats the same content again as a no-op, and new content under a filename as a replacement", async () => {
    const agent = newAgent("dedupe");
    const first = await ingest(agent.id, "policy.txt", ARTICLES.refunds);
    const again = await ingest(agent.id, "policy-copy.txt", ARTICLES.refunds);
    expect(again).toMatchObject({ outcome: "duplicate", document_id: first.document_id });
    expect(again.message).toMatch(/Already present as "policy.txt"/);
    expect(listDocuments(agent.id)).toHaveLength(1);

    const replaced = await ingest(agent.id, "policy.txt", `${ARTICLES.refunds} Updated: refunds now take 3 days.`);
    expect(replaced.outcome).toBe("replaced");
    expect(replaced.document_id).not.toBe(first.document_id);
    expect(listDocuments(agent.id).map((d) => d.id)).toEqual([replaced.document_id]);
    expect(await vectorsOf(agent.id, first.document_id!)).toEqual([]);
    const [hit] = await searchAgentDocuments(agent.id, "refund", 1);
    expect(hit.chunk_text).toMatch(/Updated/);
  });

  it("rejects a bad file without writing a row or a vector", async () => {
    const agent = newAgent("reject");
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    const res = await ingestFile(agent.id, { filename: "notes.txt", bytes: png }, { chunkSize: 800, chunkOverlap: 100 });
    expect(res).toMatchObject({ outcome: "rejected", status: "rejected", document_id: null });
    const exe = await ingestFile(agent.id, { filename: "tool.exe", bytes: enc("MZ") }, { chunkSize: 800, chunkOverlap: 100 });
    expect(exe.outcome).toBe("rejected");
    expect(listDocuments(agent.id)).toEqual([]);
    expect(await searchAgentDocuments(agent.id, "notes", 5)).toEqual([]);
  });

  it("removes an agent's vectors with the agent", async () => {
    const agent = newAgent("removed");
    const doc = await ingest(agent.id, "sla.txt", ARTICLES.sla);
    await removeAgent(agent.id);
    expect(await vectorsOf(agent.id, doc.document_id!)).toEqual([]);
  });
});

describe("a change of embedding model", () => {
  it("is refused with a message naming both models and the re-embed command", async () => {
    const { db } = await import("../db/client");
    const agent = newAgent("old model");
    const doc = await ingest(agent.id, "sla.txt", ARTICLES.sla);
    db().prepare("UPDATE documents SET embedding_model = 'text-embedding-ada-002' WHERE id = ?").run(doc.document_id);
    const err = await searchAgentDocuments(agent.id, "sla", 3).catch((e) => e);
    expect(err).toMatchObject({ status: 409, code: "embedding_model_mismatch" });
    expect(err.message).toMatch(/text-embedding-ada-002/);
    expect(err.message).toMatch(/local-/);
    expect(err.message).toMatch(/npm run reindex/);
  });
});

describe("deleting an agent while one of its files is indexing", () => {
  it("leaves none of that file's vectors behind", async () => {
    const { removeAgent: remove } = await import("./remove");
    const agent = newAgent("deleted mid-ingest");
    let removed: Promise<void> | undefined;
    const res = await ingestFile(
      agent.id,
      { filename: "long.txt", bytes: enc("chunk text ".repeat(2000)) },
      { chunkSize: 100, chunkOverlap: 0 },
      (p) => {
        // Once the first slice is written, delete the agent.
        if (p.stage === "embed" && p.done >= 64 && !removed) removed = remove(agent.id);
      },
    );
    await removed;
    expect(res.status).toBe("failed");
    const { collectionFor } = await import("../vector-store/client");
    const { embedder } = await import("../embeddings/configured");
    const left = await (await collectionFor(embedder())).get({ where: { agent_id: agent.id } });
    expect(left.ids).toEqual([]);
  });
});
