import { describe, expect, it } from "vitest";
import { auditIndex, repairIndex } from "../index-upkeep/audit";
import { collectionFor } from "../vector-store/client";
import { chunkText } from "../core/chunking";
import { insertDocument, listDocuments } from "../db/documents";
import { embedder } from "../embeddings/configured";
import { rankAllChunks, searchAgentDocuments } from "../retrieval/retrieve";
import { enc, ingest, newAgent, vectorsOf } from "../../test/helpers";
import { ingestFile } from "./pipeline";
import { removeDocument } from "./remove";
import { runCleanup } from "./cleanup";
import { addNotedChunks } from "./write-chunks";

const settings = { chunkSize: 200, chunkOverlap: 20 };
const ready = (agentId: number) => listDocuments(agentId).filter((d) => d.status === "ready");

/** Writes some vectors of a document that is not ready, as an ingest in progress would. */
async function partialDocument(agentId: number, filename: string, text: string, status: "indexing" | "none" = "indexing") {
  const id =
    status === "indexing"
      ? insertDocument(
          {
            agent_id: agentId,
            filename,
            type: "txt",
            sha256: `partial-${filename}`,
            bytes: text.length,
            chunk_size: 100,
            chunk_overlap: 0,
            text,
            embedding_model: embedder().model,
          },
          chunkText(text, 100, 0),
        )
      : 900_000 + Math.floor(Math.random() * 1000);
  const chunks = chunkText(text, 100, 0).slice(0, 3);
  await addNotedChunks(
    await collectionFor(embedder()),
    { agentId, documentId: id },
    chunks,
    await embedder().embed(chunks.map((c) => c.text)),
  );
  return id;
}

describe("two uploads of one filename at the same moment", () => {
  it("leave exactly one ready version, never none, over several trials", async () => {
    for (let trial = 0; trial < 4; trial++) {
      const agent = newAgent(`same file ${trial}`);
      const old = await ingest(agent.id, "same.txt", `Old version ${trial}: the kettle boils in four minutes.`);
      const text = `New version ${trial}: the kettle boils in three minutes. `.repeat(30);
      const results = await Promise.all([1, 2].map(() => ingestFile(agent.id, { filename: "same.txt", bytes: enc(text) }, settings)));
      expect(results.map((r) => r.outcome).sort()).toEqual(["duplicate", "replaced"]);
      const docs = ready(agent.id);
      expect(docs).toHaveLength(1);
      expect(docs[0].id).not.toBe(old.document_id);
      expect(results.every((r) => r.document_id === docs[0].id)).toBe(true);
      const [hit] = await searchAgentDocuments(agent.id, "kettle boils three minutes", 1);
      expect(hit.document_id).toBe(docs[0].id);
    }
  });

  it("different content under one name in parallel: the later one wins, both are told the truth", async () => {
    const agent = newAgent("two contents");
    const results = await Promise.all(
      ["first text about trains", "second text about boats"].map((t) =>
        ingestFile(agent.id, { filename: "n.txt", bytes: enc(t) }, settings),
      ),
    );
    const docs = ready(agent.id);
    expect(docs).toHaveLength(1);
    expect(results.filter((r) => r.status === "ready")).toHaveLength(2);
    expect(results.map((r) => r.outcome).sort()).toEqual(["indexed", "replaced"]);
    expect(docs[0].id).toBe(Math.max(...results.map((r) => r.document_id!)));
  });

  it("identical bytes under eight names in parallel give one document", async () => {
    const agent = newAgent("dedupe");
    const bytes = enc("One article, uploaded eight times under different names.");
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => ingestFile(agent.id, { filename: `copy-${i}.txt`, bytes }, settings)),
    );
    expect(ready(agent.id)).toHaveLength(1);
    expect(results.filter((r) => r.outcome === "indexed")).toHaveLength(1);
    expect(results.filter((r) => r.outcome === "duplicate")).toHaveLength(7);
  });
});

describe("only ready documents answer", () => {
  it("a document still indexing is in neither the top k nor the full ranking", async () => {
    const agent = newAgent("indexing hidden");
    const done = await ingest(agent.id, "done.txt", "Finished article about the red kettle.");
    const half = await partialDocument(agent.id, "half.txt", "red kettle red kettle red kettle ".repeat(12));
    const top = await searchAgentDocuments(agent.id, "red kettle", 5);
    expect(top.map((r) => r.document_id)).toEqual([done.document_id]);
    const [ranking] = await rankAllChunks(agent.id, ["red kettle"]);
    expect(new Set(ranking.map((r) => r.document_id))).toEqual(new Set([done.document_id]));
    expect(half).toBeGreaterThan(done.document_id!);
  });

  it("still returns k results when unready vectors are closer than every ready one", async () => {
    const agent = newAgent("crowded");
    for (const [i, t] of ["lamp manual", "lamp warranty", "lamp colours"].entries())
      await ingest(agent.id, `r${i}.txt`, `${t} for the desk lamp`);
    await partialDocument(agent.id, "x.txt", "desk lamp desk lamp desk lamp ".repeat(20));
    expect(await searchAgentDocuments(agent.id, "desk lamp", 3)).toHaveLength(3);
  });

  it("searches racing deletes answer with the chunks that exist, never an error", async () => {
    const agent = newAgent("search vs delete");
    const docs = [];
    for (let i = 0; i < 6; i++)
      docs.push(await ingest(agent.id, `d${i}.txt`, `Article ${i} about garden hoses and watering. `.repeat(8), 100, 10));
    const searches = Array.from({ length: 24 }, () => searchAgentDocuments(agent.id, "garden hoses watering", 10));
    const deletes = docs.slice(0, 5).map((d) => removeDocument(agent.id, d.document_id!));
    const results = await Promise.all([...searches, ...deletes]);
    expect(results).toHaveLength(29);
    const after = await searchAgentDocuments(agent.id, "garden hoses watering", 10);
    expect(new Set(after.map((r) => r.document_id))).toEqual(new Set([docs[5].document_id]));
  });
});

describe("audit and repair", () => {
  it("counts a vector past a document's last chunk as a mismatch, not as a missing chunk", async () => {
    const agent = newAgent("audit past the end");
    const doc = await ingest(agent.id, "shelves.txt", "An article about shelves and brackets. ".repeat(20), 100, 0);
    const n = ready(agent.id)[0]!.chunk_count;
    expect(n).toBeGreaterThan(2);
    const collection = await collectionFor(embedder());
    await addNotedChunks(
      collection,
      { agentId: agent.id, documentId: doc.document_id! },
      [{ index: n }],
      await embedder().embed(["a chunk the document does not have"]),
    );
    try {
      const report = await auditIndex();
      expect(report.missing_vectors.filter((m) => m.agent_id === agent.id)).toEqual([]);
      expect(report.count_mismatches.filter((m) => m.agent_id === agent.id)).toEqual([
        expect.objectContaining({ document_id: doc.document_id, expected: n, found: n + 1, ids: [] }),
      ]);
      // One chunk fewer than the document has is both: found n, and the absent one named.
      await collection.delete({ ids: [`doc${doc.document_id}#${n}`, `doc${doc.document_id}#0`], where: { agent_id: agent.id } });
      const short = await auditIndex();
      expect(short.missing_vectors.filter((m) => m.agent_id === agent.id)).toEqual([
        expect.objectContaining({ document_id: doc.document_id, expected: n, found: n - 1, ids: [`doc${doc.document_id}#0`] }),
      ]);
    } finally {
      await removeDocument(agent.id, doc.document_id!);
      await runCleanup({ all: true });
    }
  });

  it("finds orphan vectors, missing vectors and stuck documents, and repairs them", async () => {
    await runCleanup({ all: true });
    const agent = newAgent("audit");
    const good = await ingest(agent.id, "good.txt", "A healthy article about ladders. ".repeat(20), 100, 0);
    const damaged = await ingest(agent.id, "damaged.txt", "An article about paint whose vectors went missing. ".repeat(20), 100, 0);
    const stuck = await partialDocument(agent.id, "stuck.txt", "stuck while indexing ".repeat(20));
    const orphan = await partialDocument(agent.id, "orphan.txt", "vectors nobody owns ".repeat(20), "none");
    const collection = await collectionFor(embedder());
    await collection.delete({ ids: [`doc${damaged.document_id}#1`, `doc${damaged.document_id}#2`], where: { agent_id: agent.id } });

    const full = await auditIndex();
    expect(full.ok).toBe(false);
    // Other tests of this file leave documents too: look at this agent's.
    const mine = <T extends { agent_id: number }>(rows: T[]) => rows.filter((r) => r.agent_id === agent.id);
    const report = {
      orphan_vectors: mine(full.orphan_vectors),
      missing_vectors: mine(full.missing_vectors),
      count_mismatches: mine(full.count_mismatches),
      stuck_documents: mine(full.stuck_documents),
    };
    expect(report.orphan_vectors).toEqual([expect.objectContaining({ agent_id: agent.id, document_id: orphan, vectors: 3 })]);
    expect(report.missing_vectors).toEqual([
      expect.objectContaining({ document_id: damaged.document_id, ids: [`doc${damaged.document_id}#1`, `doc${damaged.document_id}#2`] }),
    ]);
    expect(report.count_mismatches.map((d) => d.document_id)).toEqual([damaged.document_id]);
    expect(report.stuck_documents.map((d) => d.document_id)).toEqual([stuck]);

    const repaired = await repairIndex();
    expect(repaired.after.ok).toBe(true);
    expect(repaired.reindexed.filter((r) => r.document_id === damaged.document_id)).toEqual([
      expect.objectContaining({ document_id: damaged.document_id, outcome: "replaced" }),
    ]);
    expect(await vectorsOf(agent.id, orphan)).toEqual([]);
    expect(await vectorsOf(agent.id, stuck)).toEqual([]);
    expect(
      ready(agent.id)
        .map((d) => d.filename)
        .sort(),
    ).toEqual(["damaged.txt", "good.txt"]);
    const [hit] = await searchAgentDocuments(agent.id, "paint vectors missing", 1);
    expect(hit.filename).toBe("damaged.txt");
    expect(good.status).toBe("ready");
  });
});
