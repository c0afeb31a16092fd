import { describe, expect, it } from "vitest";
import type { Collection } from "chromadb";
import { chunkText } from "../core/chunking";
import { documentChunks } from "../db/chunks";
import { commitReady, insertDocument } from "../db/documents";
import { embedder } from "../embeddings/configured";
import { searchAgentDocuments } from "../retrieval/retrieve";
import { chroma, chunkId, collectionFor, collectionName, DISTANCE_SPACE } from "../vector-store/client";
import { notReturned } from "../vector-store/chunks";
import { addNotedChunks } from "../ingest/write-chunks";
import { ingest, newAgent } from "../../test/helpers";
import { unreachableOf } from "../db/unreachable";
import { db } from "../db/client";
import { listDocuments } from "../db/documents";
import { readdVectors } from "./write-again";
import { auditIndex, repairIndex } from "./audit";

// Tests run in file order: the index stays healthy until the last describe breaks a collection of its own.

describe("notReturned: which chunks a query by their own vector lost", () => {
  const far = (...ids: string[]) => ({ ids, distances: ids.map((_, i) => 0.2 + i / 10) });

  it("keeps a chunk its own query returned, wherever it ranks", () => {
    expect(notReturned(["a", "b"], [far("x", "a"), far("b", "x")], 2)).toEqual([]);
  });

  it("reports a chunk missing from a full list of farther chunks, or from a short list", () => {
    expect(notReturned(["a", "b"], [far("x", "y"), far("x")], 2)).toEqual(["a", "b"]);
  });

  it("does not report a chunk crowded out by as many identical chunks as were asked for", () => {
    const twins = { ids: ["t1", "t2"], distances: [0, 1e-7] };
    expect(notReturned(["a"], [twins], 2)).toEqual([]);
    expect(notReturned(["a"], [{ ids: ["t1", "x"], distances: [0, 0.3] }], 2)).toEqual(["a"]);
  });

  it("counts a missing distance as far", () => {
    expect(notReturned(["a"], [{ ids: ["x", "y"], distances: [null, null] }], 2)).toEqual(["a"]);
  });
});

/** A vector as Chroma holds it: id, embedding and metadata. */
async function stored(collection: Collection, agentId: number, ids: string[]) {
  const res = await collection.get({ ids, where: { agent_id: agentId }, include: ["embeddings", "metadatas"] });
  return new Map(res.ids.map((id, i) => [id, { embedding: res.embeddings[i], metadata: res.metadatas[i] }]));
}

/**
 * The same vector up to float32 rounding: Chroma 1.0.5 reads the JSON it logs with serde_json's
 * default float parser, so a component can move by one float32 step each time a vector is written.
 */
function expectSameVector(
  actual: { embedding: number[]; metadata: unknown } | undefined,
  expected: { embedding: number[]; metadata: unknown },
) {
  expect(actual?.metadata).toEqual(expected.metadata);
  expect(actual?.embedding).toHaveLength(expected.embedding.length);
  const worst = Math.max(...actual!.embedding.map((x, i) => Math.abs(x - expected.embedding[i])));
  expect(worst).toBeLessThan(1e-6);
}

/** Whether a query by the chunk's own vector, filtered to its agent as every search is, returns it. */
/** Whether a top-10 query by the chunk's own vector, straight to Chroma, returns the chunk. */
async function returnsItself(collection: Collection, agentId: number, id: string, embedding: number[]) {
  const res = await collection.query({ queryEmbeddings: [embedding], nResults: 10, where: { agent_id: agentId }, include: ["distances"] });
  return res.ids[0].includes(id);
}

describe("reachability in a healthy index", () => {
  it("reports no unreachable chunk, also among identical chunks that crowd each other out of the top 10", async () => {
    const agent = newAgent("healthy");
    // Twelve documents open with the same 100 characters: twelve identical vectors, more than a self-query's 10 results.
    const shared = "Contact the support desk by email or phone; opening hours are listed on the help centre page.".padEnd(100, " ");
    for (let i = 0; i < 12; i++)
      await ingest(agent.id, `faq-${i}.txt`, `${shared}Question ${i}: how do I change setting number ${i} of the device?`, 100, 0);
    await ingest(agent.id, "long.txt", "A long article about gardening, watering and soil. ".repeat(60), 200, 20);

    const report = await auditIndex({ reachability: true });
    expect(report.unreachable_count).toBe(0);
    expect(report.unreachable_chunks).toEqual([]);
    expect(report.reachability_checked).toBeGreaterThanOrEqual(24 + 15);
    expect(report.ok).toBe(true);
  });
});

describe("writing a chunk again", () => {
  it("keeps its id, metadata and embedding, and a search for its text still finds it first", async () => {
    const agent = newAgent("readd");
    const other = newAgent("readd other");
    const text = [
      "Kettles. Descale the kettle every month with white vinegar and rinse it twice before use.",
      "Warranty. Every toaster carries a two year warranty against manufacturing faults.",
      "Spare parts. Lids, filters and power bases can be ordered from the spares catalogue.",
      "Recycling. Old appliances can be dropped at any store for free recycling of the metal.",
    ].join(" ");
    const doc = await ingest(agent.id, "appliances.txt", text, 90, 0);
    const chunk = documentChunks(doc.document_id!)[2];
    const collection = await collectionFor(embedder());
    const id = chunkId(doc.document_id!, 2);
    const before = (await stored(collection, agent.id, [id])).get(id)!;

    // Another agent's name cannot touch it.
    expect(await readdVectors(collection, other.id, [id])).toEqual([]);
    const written = await readdVectors(collection, agent.id, [id]);
    expect(written.map((v) => v.id)).toEqual([id]);

    expectSameVector((await stored(collection, agent.id, [id])).get(id), before);
    const [best] = await searchAgentDocuments(agent.id, chunk.text, 3);
    expect(best).toMatchObject({ document_id: doc.document_id, chunk_index: 2, chunk_text: chunk.text });
  });
});

// Chroma's HNSW graph loses nodes on its own now and then (a node whose every in-link was pruned);
// a collection built with 2 neighbours per node and ef 1 loses many, so the fault is certain here.
describe("an index that cannot return some chunks", () => {
  const MODEL = "audit-sparse-graph";
  const DIM = 64;
  const CHUNKS = 25;

  function seeded(seed: number) {
    let s = seed;
    return () => (s = (s * 16807) % 2147483647) / 2147483647 - 0.5;
  }

  async function sparseCollection(): Promise<Collection> {
    return chroma().createCollection({
      name: collectionName(MODEL, DIM),
      embeddingFunction: null,
      configuration: { hnsw: { space: DISTANCE_SPACE, max_neighbors: 2, ef_construction: 2, ef_search: 1 } },
      metadata: { embedding_model: MODEL, embedding_dimension: DIM, distance_space: DISTANCE_SPACE },
    });
  }

  /** A ready document of this model, written the way an ingest writes it, with seeded random vectors. */
  async function readyDocument(collection: Collection, agentId: number, filename: string, rand: () => number) {
    const text = `${filename} `.repeat(Math.ceil((CHUNKS * 40) / (filename.length + 1))).slice(0, CHUNKS * 40);
    const chunks = chunkText(text, 40, 0, "fixed");
    const id = insertDocument(
      {
        agent_id: agentId,
        filename,
        type: "txt",
        sha256: `sparse-${filename}`,
        bytes: text.length,
        chunk_size: 40,
        chunk_overlap: 0,
        chunk_strategy: "fixed",
        text,
        embedding_model: MODEL,
      },
      chunks,
    );
    await addNotedChunks(
      collection,
      { agentId, documentId: id },
      chunks,
      chunks.map(() => Array.from({ length: DIM }, rand)),
    );
    await commitReady(agentId, id, filename, chunks.length);
    return id;
  }

  it("finds chunks a query by their own vector never returns, and repair writes them again unchanged", async () => {
    const collection = await sparseCollection();
    const agent = newAgent("sparse");
    const other = newAgent("sparse other");
    const rand = seeded(20240611);
    const docs = new Map<number, { agentId: number; filename: string }>();
    for (let i = 0; i < 6; i++) {
      for (const [agentId, name] of [
        [agent.id, "manual"],
        [other.id, "notes"],
      ] as const) {
        const filename = `${name}-${i}.txt`;
        docs.set(await readyDocument(collection, agentId, filename, rand), { agentId, filename });
      }
    }

    // What a search sees, chunk by chunk, measured here without the audit's code.
    const all = new Map<string, { agentId: number; embedding: number[]; metadata: unknown }>();
    for (const [documentId, d] of docs) {
      const ids = Array.from({ length: CHUNKS }, (_, i) => chunkId(documentId, i));
      for (const [id, v] of await stored(collection, d.agentId, ids)) all.set(id, { agentId: d.agentId, ...v });
    }
    expect(all.size).toBe(docs.size * CHUNKS);
    const lost = new Set<string>();
    for (const [id, v] of all) if (!(await returnsItself(collection, v.agentId, id, v.embedding))) lost.add(id);
    expect(lost.size).toBeGreaterThan(0);

    const report = await auditIndex({ reachability: true });
    expect(report.ok).toBe(false);
    expect(report.unreachable_count).toBe(lost.size);
    expect(report.unreachable_chunks).toHaveLength(Math.min(lost.size, 20));
    for (const c of report.unreachable_chunks!) {
      expect(lost.has(c.id)).toBe(true);
      const doc = docs.get(c.document_id)!;
      expect(c).toEqual({
        agent_id: doc.agentId,
        document_id: c.document_id,
        filename: doc.filename,
        chunk_index: c.chunk_index,
        id: chunkId(c.document_id, c.chunk_index),
      });
    }
    // Kept, so that a search served by the index ranks them by their exact distance.
    const kept = [...unreachableOf(agent.id), ...unreachableOf(other.id)].map((k) => chunkId(k.document_id, k.chunk_index));
    expect(new Set(kept)).toEqual(lost);
    // Only vectors were unreachable: nothing is missing, nothing is an orphan.
    expect(report.missing_vectors).toEqual([]);
    expect(report.orphan_vectors).toEqual([]);

    const repaired = await repairIndex({ reachability: true });
    expect(repaired.readded_chunks).toBe(lost.size);
    expect(repaired.repaired_chunks! + repaired.still_unreachable!).toBe(lost.size);
    expect(repaired.repaired_chunks).toBeGreaterThan(0);
    expect(repaired.reindexed).toEqual([]);
    // Written again with the same id, embedding and metadata, and none went missing.
    for (const [documentId, d] of docs) {
      const ids = Array.from({ length: CHUNKS }, (_, i) => chunkId(documentId, i));
      const now = await stored(collection, d.agentId, ids);
      expect(now.size).toBe(CHUNKS);
      for (const [id, v] of now) expectSameVector(v, all.get(id)!);
    }
    expect(repaired.after.missing_vectors).toEqual([]);
    // The audit after repair counts exactly what searches still cannot return.
    let still = 0;
    for (const [id, v] of all) if (!(await returnsItself(collection, v.agentId, id, v.embedding))) still++;
    expect(repaired.after.unreachable_count).toBe(still);
    // Those the index returns again are forgotten; the rest stay kept.
    expect(unreachableOf(agent.id).length + unreachableOf(other.id).length).toBe(still);
  });
});

describe("the exact ranking's copy of the vectors", () => {
  it("names ready documents whose copy is missing, and the repair copies them from Chroma", async () => {
    const agent = newAgent("copies audit");
    await ingest(agent.id, "kept.md", "Routers blink amber when the line is down.");
    await ingest(agent.id, "lost.md", "Printers need a driver before the first page.");
    // (The sparse-graph documents above were written straight to Chroma, with no copy: other agents.)
    const mine = (r: { exact_copies_missing?: { agent_id: number }[] }) => r.exact_copies_missing!.filter((d) => d.agent_id === agent.id);
    expect(mine(await auditIndex())).toEqual([]);
    const lost = listDocuments(agent.id).find((d) => d.filename === "lost.md")!;
    db().prepare("DELETE FROM chunk_vectors WHERE document_id = ?").run(lost.id);

    const report = await auditIndex();
    expect(mine(report)).toEqual([{ agent_id: agent.id, document_id: lost.id, filename: "lost.md" }]);
    expect(report.ok).toBe(false);
    const repaired = await repairIndex();
    expect(mine(repaired.after)).toEqual([]);
    const n = db().prepare("SELECT COALESCE(SUM(count), 0) AS n FROM chunk_vectors WHERE document_id = ?").get(lost.id) as { n: number };
    expect(n.n).toBe(lost.chunk_count);
  });
});
