import { describe, expect, it } from "vitest";
import type { Collection } from "chromadb";
import { chunkText } from "../core/chunking";
import { commitReady, insertDocument } from "../db/documents";
import { newAgent } from "../../test/helpers";
import { chroma, chunkId, collectionName, DISTANCE_SPACE } from "./client";
import { addChunks, agentVectors, ownVectorsReturned, unreachableAmong, type StoredVector } from "./chunks";

// The check after a crash asks first whether a chunk's own vector returns it over the whole
// collection, and asks with its agent's filter, as searches do, only for those it did not. That
// is right only if a chunk the unfiltered query returns is one the filtered query returns too.
// A graph of 2 neighbours per node and ef 1 loses many chunks, so both kinds of answer occur.
const MODEL = "self-query-sparse-graph";
const DIM = 48;
const CHUNKS = 30;

function seeded(seed: number) {
  let s = seed;
  return () => (s = (s * 16807) % 2147483647) / 2147483647 - 0.5;
}

async function readyDocument(collection: Collection, agentId: number, filename: string, rand: () => number): Promise<number> {
  const text = `${filename} `.repeat(Math.ceil((CHUNKS * 40) / (filename.length + 1))).slice(0, CHUNKS * 40);
  const chunks = chunkText(text, 40, 0, "fixed");
  const id = insertDocument(
    {
      agent_id: agentId,
      filename,
      type: "txt",
      sha256: `self-${filename}`,
      bytes: text.length,
      chunk_size: 40,
      chunk_overlap: 0,
      chunk_strategy: "fixed",
      text,
      embedding_model: MODEL,
    },
    chunks,
  );
  await addChunks(
    collection,
    { agentId, documentId: id },
    chunks,
    chunks.map(() => Array.from({ length: DIM }, rand)),
  );
  await commitReady(agentId, id, filename, chunks.length);
  return id;
}

/** Whether a top-10 query by the chunk's own vector, filtered to its agent as every search is, returns it. */
async function filteredReturns(collection: Collection, agentId: number, v: StoredVector): Promise<boolean> {
  const res = await collection.query({
    queryEmbeddings: [v.embedding],
    nResults: 10,
    where: { agent_id: agentId },
    include: ["distances"],
  });
  return res.ids[0].includes(v.id);
}

describe("own-vector queries without and with the agent filter", () => {
  it("returns every chunk with the filter that it returns without, and unreachableAmong is the filtered answer", async () => {
    const collection = await chroma().createCollection({
      name: collectionName(MODEL, DIM),
      embeddingFunction: null,
      configuration: { hnsw: { space: DISTANCE_SPACE, max_neighbors: 2, ef_construction: 2, ef_search: 1 } },
      metadata: { embedding_model: MODEL, embedding_dimension: DIM, distance_space: DISTANCE_SPACE },
    });
    const rand = seeded(777);
    // A small agent among two larger ones, as a small team's among others in one collection.
    const agents = [newAgent("self big"), newAgent("self other"), newAgent("self small")];
    const docsOf = new Map<number, number[]>(agents.map((a) => [a.id, []]));
    for (let i = 0; i < 5; i++) {
      for (const [k, a] of agents.entries()) {
        if (k === 2 && i > 0) continue;
        docsOf.get(a.id)!.push(await readyDocument(collection, a.id, `doc-${k}-${i}.txt`, rand));
      }
    }

    let unfilteredMissed = 0;
    let lostAll = 0;
    for (const a of agents) {
      const ids = docsOf.get(a.id)!.flatMap((d) => Array.from({ length: CHUNKS }, (_, c) => chunkId(d, c)));
      const vectors = await agentVectors(collection, a.id, ids);
      expect(vectors).toHaveLength(ids.length);
      const unfiltered = await ownVectorsReturned(collection, vectors);
      // Only ids asked about come back.
      for (const id of unfiltered) expect(ids).toContain(id);
      const lost = new Set<string>();
      for (const v of vectors) {
        const filtered = await filteredReturns(collection, a.id, v);
        if (unfiltered.has(v.id)) expect(filtered, `${v.id}: returned without the filter, not with it`).toBe(true);
        if (!filtered) lost.add(v.id);
      }
      unfilteredMissed += vectors.length - unfiltered.size;
      lostAll += lost.size;
      expect(await unreachableAmong(collection, a.id, vectors)).toEqual(lost);
    }
    console.log(`[self-query.test] unfiltered missed ${unfilteredMissed}, lost to filtered searches ${lostAll}`);
    // Both kinds of answer occurred: chunks the unfiltered query missed, and chunks lost to searches.
    expect(unfilteredMissed).toBeGreaterThan(0);
    expect(lostAll).toBeGreaterThan(0);
  });
});
