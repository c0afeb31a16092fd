import { afterEach, describe, expect, it } from "vitest";
import { embedder } from "../embeddings/configured";
import { removeDocument } from "../ingest/remove";
import { listDocuments } from "../db/documents";
import { db } from "../db/client";
import { chroma, chunkId, collectionName } from "../vector-store/client";
import { agentVectors, cosineDistance } from "../vector-store/chunks";
import { ingest, newAgent, sparseCollection } from "../../test/helpers";
import { copyMissingVectors, copyState } from "../index-upkeep/exact-copies";
import { queryAgent } from "./index-candidates";
import { embedForAgent, retrieve } from "./retrieve";
import { exactBytesHeld, exactVectors, readSteps, useExactLimits } from "./exact";

// This file's collection is made before any ingest with 2 neighbours per node and ef 1: a graph
// whose filtered queries miss nearer chunks (as a large agent's in a shared collection does).
// Three agents share it; every document is the same support vocabulary in another order plus one
// word of its own, so their vectors sit close together.
const VOCAB =
  "account password reset login error update install router printer network billing invoice refund order shipping delivery warranty battery screen device email ticket customer setting profile subscription payment".split(
    " ",
  );
let seed = 7;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const word = (i: number) =>
  `zq${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + (Math.floor(i / 26) % 26))}${String.fromCharCode(97 + (Math.floor(i / 676) % 26))}x`;
const article = (i: number) => Array.from({ length: 60 }, () => VOCAB[Math.floor(rand() * VOCAB.length)]).join(" ") + ` ${word(i)}.`;

const key = (h: { document_id: number; chunk_index: number }) => chunkId(h.document_id, h.chunk_index);

/** The exact top k from the vectors Chroma stores, computed here from scratch. */
async function bruteForce(agentId: number, query: number[], k: number) {
  const collection = await chroma().getCollection({
    name: collectionName(embedder().model, embedder().dimension),
    embeddingFunction: null,
  } as never);
  const ids = listDocuments(agentId)
    .filter((d) => d.status === "ready")
    .flatMap((d) => Array.from({ length: d.chunk_count }, (_, c) => chunkId(d.id, c)));
  const stored = await agentVectors(collection, agentId, ids);
  return stored
    .map((v) => ({ id: v.id, score: cosineDistance(query, v.embedding) }))
    .sort((a, b) => a.score - b.score)
    .slice(0, k);
}

afterEach(() => useExactLimits({}));

describe("exact ranking", () => {
  it("returns the exact top k where a sparse graph misses, for each of several agents in one collection", async () => {
    const { collection } = await sparseCollection();
    const agents = [newAgent("exact a"), newAgent("exact b"), newAgent("exact c")];
    let n = 0;
    for (const a of agents) for (let i = 0; i < 40; i++, n++) await ingest(a.id, `doc-${n}.md`, article(n), 2000, 0);

    let indexMisses = 0;
    n = 0;
    for (const a of agents) {
      for (let i = 0; i < 40; i++, n++) {
        const query = `${word(n)} ${VOCAB[i % VOCAB.length]}`;
        const { vectors } = await embedForAgent(a.id, [query]);
        const exact = await bruteForce(a.id, vectors[0], 5);
        const [served] = await retrieve(a.id, [query], { topK: 5, mode: "vector" });
        // The same chunks in the same order, each at its exact distance (ties within float error).
        expect(
          served.map((r) => r.score).every((s, j) => Math.abs(s - exact[j].score) < 1e-5),
          query,
        ).toBe(true);
        expect(key(served[0])).toBe(exact[0].id);
        const [raw] = await queryAgent(collection, a.id, vectors, 5);
        if (!raw.some((h) => key(h) === exact[0].id)) indexMisses++;
      }
    }
    // What the graph alone returns: the nearest chunk is missing from its top 5 for some queries.
    console.log(`[exact.test] Chroma's top 5 missed the nearest chunk for ${indexMisses} of ${n} queries`);
    expect(indexMisses).toBeGreaterThan(0);

    // Turned off, the same search is Chroma's, and misses.
    useExactLimits({ chunks: 0 });
    let servedMisses = 0;
    n = 0;
    for (const a of agents) {
      for (let i = 0; i < 40; i++, n++) {
        const query = `${word(n)} ${VOCAB[i % VOCAB.length]}`;
        const { vectors } = await embedForAgent(a.id, [query]);
        const [nearest] = await bruteForce(a.id, vectors[0], 1);
        const [served] = await retrieve(a.id, [query], { topK: 5, mode: "vector" });
        if (!served.some((r) => key(r) === nearest.id)) servedMisses++;
      }
    }
    expect(servedMisses).toBeGreaterThan(0);
  });

  it("follows deletes and replacements, and ranks an agent past its memory budget from SQLite with the same result", async () => {
    const a = newAgent("follow");
    const docs = [];
    for (let i = 0; i < 6; i++) docs.push(await ingest(a.id, `f-${i}.md`, article(1000 + i), 2000, 0));
    const q = `${word(1003)} refund`;
    const [before] = await retrieve(a.id, [q], { topK: 3, mode: "vector" });
    expect(before[0].filename).toBe("f-3.md");

    await removeDocument(a.id, before[0].document_id);
    const [after] = await retrieve(a.id, [q], { topK: 3, mode: "vector" });
    expect(after.map((r) => r.filename)).not.toContain("f-3.md");

    // A replacement under the same name is found, the old version is not.
    await ingest(a.id, "f-3.md", article(1003), 2000, 0);
    const [replaced] = await retrieve(a.id, [q], { topK: 6, mode: "vector" });
    expect(replaced[0].filename).toBe("f-3.md");
    expect(replaced.filter((r) => r.filename === "f-3.md")).toHaveLength(1);

    // 1 byte of memory: nothing is held, every search reads the copy from SQLite.
    useExactLimits({ memoryMb: 1 / (1024 * 1024) });
    const held = await exactVectors(a.id, embedder().model);
    expect(held?.table).toBeNull();
    const [streamed] = await retrieve(a.id, [q], { topK: 6, mode: "vector" });
    expect(streamed).toEqual(replaced);
  });

  it("ranks a streamed agent read a few chunks a step, a longer document alone, as the held table does", async () => {
    const a = newAgent("pages");
    for (let i = 0; i < 5; i++) await ingest(a.id, `p-${i}.md`, article(3000 + i), 2000, 0);
    const long = await ingest(a.id, "long.md", `${article(3010)} ${article(3011)} ${article(3012)}`, 150, 30);
    expect(long.chunk_count).toBeGreaterThan(4);
    for (let i = 5; i < 8; i++) await ingest(a.id, `p-${i}.md`, article(3000 + i), 2000, 0);
    const queries = [`${word(3002)} refund`, `${word(3011)} login`, `${word(3007)} printer`];
    const held = await retrieve(a.id, queries, { topK: 8, mode: "vector" });
    expect(held[1][0].filename).toBe("long.md");
    // Nothing held, two chunks a step: pages of two short documents, and the long one alone.
    useExactLimits({ memoryMb: 1 / (1024 * 1024), readChunks: 2 });
    expect((await exactVectors(a.id, embedder().model))?.table).toBeNull();
    expect(await retrieve(a.id, queries, { topK: 8, mode: "vector" })).toEqual(held);
  });

  it("serves an agent whose copy is missing from Chroma until start-up copies it, then exactly", async () => {
    const a = newAgent("copies");
    for (let i = 0; i < 4; i++) await ingest(a.id, `c-${i}.md`, article(2000 + i), 2000, 0);
    const model = embedder().model;
    expect(await exactVectors(a.id, model)).not.toBeNull();
    const ids = listDocuments(a.id).map((d) => d.id);
    db()
      .prepare(`DELETE FROM chunk_vectors WHERE document_id IN (${ids.join(",")})`)
      .run();
    useExactLimits({}); // as after a restart: nothing held
    expect(await exactVectors(a.id, model)).toBeNull();
    expect(copyState().missing).toBeGreaterThanOrEqual(4);

    await copyMissingVectors();
    expect(copyState().error).toBeNull();
    const copied = await exactVectors(a.id, model);
    expect(copied?.chunks).toBe(listDocuments(a.id).reduce((s, d) => s + d.chunk_count, 0));
    const [hits] = await retrieve(a.id, [`${word(2002)} invoice`], { topK: 2, mode: "vector" });
    expect(hits[0].filename).toBe("c-2.md");
  });

  it("holds no more vectors than its memory allows: agents take turns, with the same results", async () => {
    const agents = [newAgent("budget a"), newAgent("budget b")];
    for (const [k, a] of agents.entries()) for (let i = 0; i < 8; i++) await ingest(a.id, `b-${i}.md`, article(3000 + 10 * k + i), 2000, 0);
    const query = (k: number) => `${word(3000 + 10 * k + 5)} refund`;
    const roomy = await Promise.all(agents.map((a, k) => retrieve(a.id, [query(k)], { topK: 4, mode: "vector" })));
    const one = (await exactVectors(agents[0].id, embedder().model))!.bytes;
    // Room for one agent's vectors, not two.
    useExactLimits({ memoryMb: (one * 1.5) / (1024 * 1024) });
    for (let round = 0; round < 2; round++) {
      for (const [k, a] of agents.entries()) {
        expect(await retrieve(a.id, [query(k)], { topK: 4, mode: "vector" })).toEqual(roomy[k]);
        expect(exactBytesHeld()).toBeLessThanOrEqual(one * 1.5);
        expect((await exactVectors(a.id, embedder().model))?.table).not.toBeNull();
      }
    }
    // A document added to a held agent is appended, and found.
    await ingest(agents[1].id, "b-new.md", article(3999), 2000, 0);
    const [added] = await retrieve(agents[1].id, [`${word(3999)} refund`], { topK: 1, mode: "vector" });
    expect(added[0].filename).toBe("b-new.md");
  });
});

describe("reading an agent's vectors in steps", () => {
  it("holds at most the step's chunks, whatever the documents' sizes, and a larger document alone", () => {
    // Ends of each step (exclusive), over documents of these chunk counts, 10 chunks a step.
    expect(readSteps([3, 3, 3, 3, 3], 10)).toEqual([3, 5]);
    expect(readSteps([1000, 2, 2], 10)).toEqual([1, 3]);
    expect(readSteps([2, 1000, 2], 10)).toEqual([1, 2, 3]);
    expect(readSteps([10, 10], 10)).toEqual([1, 2]);
    expect(readSteps([], 10)).toEqual([]);
    // Every document is read once, in order.
    const counts = Array.from({ length: 500 }, (_, i) => 1 + ((i * 37) % 900));
    const ends = readSteps(counts, 4096);
    expect(ends.at(-1)).toBe(counts.length);
    let from = 0;
    for (const end of ends) {
      const chunks = counts.slice(from, end).reduce((a, b) => a + b, 0);
      expect(end - from === 1 || chunks <= 4096).toBe(true);
      from = end;
    }
  });
});
