import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { embedder } from "../embeddings/configured";
import { listDocuments } from "../db/documents";
import { db } from "../db/client";
import { chroma, chunkId, collectionName, DISTANCE_SPACE } from "../vector-store/client";
import { agentVectors, cosineDistance } from "../vector-store/chunks";
import { indexMissSentence } from "../client/index-miss";
import { ingest, newAgent } from "../../test/helpers";
import { embedForAgent, retrieve } from "./retrieve";
import { useExactLimits } from "./exact";
import { inspectQuery } from "./inspect";
import { missesAgainst } from "./inspect-misses";

// As in exact.test.ts: this file's collection is made before any ingest with 2 neighbours per
// node and ef 1, a graph whose filtered queries miss nearer chunks. Three agents share it; every
// document is the same support vocabulary in another order plus one word of its own.
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
const TOP_K = 5;

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
    .map((v) => ({ id: v.id, document_id: v.document_id, score: cosineDistance(query, v.embedding) }))
    .sort((a, b) => a.score - b.score)
    .slice(0, k);
}

const agents: { id: number }[] = [];
beforeAll(async () => {
  const e = embedder();
  await e.embed(["warm-up"]);
  await chroma().createCollection({
    name: collectionName(e.model, e.dimension),
    embeddingFunction: null,
    configuration: { hnsw: { space: DISTANCE_SPACE, max_neighbors: 2, ef_construction: 2, ef_search: 1 } },
    metadata: { embedding_model: e.model, embedding_dimension: e.dimension, distance_space: DISTANCE_SPACE },
  });
  agents.push(newAgent("misses a"), newAgent("misses b"), newAgent("misses c"));
  let n = 0;
  for (const a of agents) for (let i = 0; i < 40; i++, n++) await ingest(a.id, `doc-${n}.md`, article(n), 2000, 0);
}, 120_000);

afterEach(() => useExactLimits({}));

/** Queries whose search, served by the approximate index, lacks the exact nearest chunk. */
async function missedQueries(want: number) {
  const found: {
    agentId: number;
    query: string;
    nearest: { id: string; document_id: number; score: number };
    exact: { id: string; score: number }[];
  }[] = [];
  let n = 0;
  for (const a of agents) {
    for (let i = 0; i < 40; i++, n++) {
      if (found.length >= want) return found;
      const query = `${word(n)} ${VOCAB[i % VOCAB.length]}`;
      const { vectors } = await embedForAgent(a.id, [query]);
      const exact = await bruteForce(a.id, vectors[0], TOP_K);
      const [served] = await retrieve(a.id, [query], { topK: TOP_K, mode: "vector" });
      if (!served.some((r) => key(r) === exact[0].id)) found.push({ agentId: a.id, query, nearest: exact[0], exact });
    }
  }
  return found;
}

describe("the inspector's approximate-search misses", () => {
  it("names the nearest chunk the vector index did not return, and says so in the expected document's diagnosis", async () => {
    useExactLimits({ chunks: 0 }); // served by Chroma's graph alone
    const cases = await missedQueries(6);
    expect(cases.length).toBeGreaterThan(0);
    let unreachable = 0;
    for (const { agentId, query, nearest, exact } of cases) {
      const ins = await inspectQuery(agentId, query, TOP_K, nearest.document_id, "vector");
      expect(ins).toMatchObject({ ranked_exactly: false, exact_unavailable: false });
      expect(ins.results.map(key), query).not.toContain(nearest.id);

      const miss = ins.index_misses.find((m) => key(m) === nearest.id);
      expect(miss, query).toMatchObject({ nearer_than: 1, exact_rank: 1, nearer_than_distance: ins.results[0].score });
      expect(Math.abs(miss!.distance - nearest.score)).toBeLessThan(1e-5);
      expect(miss!.filename).toBe(listDocuments(agentId).find((d) => d.id === nearest.document_id)!.filename);
      // Every miss named is one: of the exact top k, not among the results, nearer than the result it names and not the one before.
      for (const m of ins.index_misses) {
        expect(exact.slice(0, TOP_K).map((x) => x.id)).toContain(key(m));
        expect(ins.results.map(key)).not.toContain(key(m));
        const j = m.nearer_than ?? ins.results.length + 1; // null: farther than every result of a short list
        if (m.nearer_than === null) expect(ins.results.length).toBeLessThan(TOP_K);
        else expect(m.distance).toBeLessThan(ins.results[j - 1].score);
        if (j > 1) expect(m.distance).toBeGreaterThanOrEqual(ins.results[j - 2].score - 1e-6);
      }
      // And every chunk of the exact top k that the results lack is named.
      const last = ins.results.length < TOP_K ? Infinity : ins.results[TOP_K - 1].score - 1e-5; // a short list lacks all the others
      const nearer = exact.filter((x) => !ins.results.some((r) => key(r) === x.id) && x.score < last);
      expect(ins.index_misses.map(key)).toEqual(expect.arrayContaining(nearer.map((x) => x.id)));

      // A chunk of the document that the index cannot return is placed in the exact ranking.
      const [v] = (await embedForAgent(agentId, [query])).vectors;
      const ranking = await bruteForce(agentId, v, Number.POSITIVE_INFINITY);
      for (const c of ins.expected!.chunks.filter((c) => c.unreachable)) {
        expect(c.rank, query).toBe(ranking.findIndex((x) => x.id === chunkId(nearest.document_id, c.chunk_index)) + 1);
        unreachable++;
      }

      // The diagnosis: exact rank 1, and the words that the index did not return it.
      expect(ins.expected!.best_rank).toBe(1);
      expect(ins.expected!.index_miss).toEqual(miss);
      expect(indexMissSentence(ins.expected!.index_miss!)).toMatch(
        /is nearer than result 1 \(.+\), but the vector index did not return it/,
      );

      // Hybrid results fuse the same vector ranking: its misses are named against that ranking.
      const hybrid = await inspectQuery(agentId, query, TOP_K, nearest.document_id, "hybrid");
      expect(hybrid.index_misses.find((m) => key(m) === nearest.id)).toMatchObject({ nearer_than: 1 });
      expect(hybrid.expected!.index_miss).toMatchObject({ chunk_index: miss!.chunk_index, nearer_than: 1 });
    }

    // Another case's missed chunk, looked for with this query: farther down, behind this query's
    // own missed nearest chunk, which the index's ranking does not hold either.
    let behindMissed = 0;
    for (const a of cases) {
      for (const b of cases) {
        if (a === b || a.agentId !== b.agentId || a.nearest.document_id === b.nearest.document_id) continue;
        const ins = await inspectQuery(a.agentId, a.query, TOP_K, b.nearest.document_id, "vector");
        const [v] = (await embedForAgent(a.agentId, [a.query])).vectors;
        const ranking = await bruteForce(a.agentId, v, Number.POSITIVE_INFINITY);
        for (const c of ins.expected!.chunks.filter((c) => c.unreachable)) {
          const rank = ranking.findIndex((x) => x.id === chunkId(b.nearest.document_id, c.chunk_index)) + 1;
          expect(c.rank, `${a.query}: ${b.nearest.id}`).toBe(rank);
          if (rank > 1) behindMissed++;
        }
      }
    }
    console.log(
      `[inspect-misses.test] ${cases.length} missed queries, ${unreachable} unreachable chunks of their documents, ${behindMissed} behind another`,
    );
    expect(unreachable).toBeGreaterThan(0);
    expect(behindMissed).toBeGreaterThan(0);

    // Ranked exactly, the same queries retrieve the nearest chunk first and nothing is missing.
    useExactLimits({});
    for (const { agentId, query, nearest } of cases) {
      const ins = await inspectQuery(agentId, query, TOP_K, nearest.document_id, "vector");
      expect(ins).toMatchObject({ ranked_exactly: true, exact_unavailable: false, index_misses: [] });
      expect(key(ins.results[0]), query).toBe(nearest.id);
      expect(ins.expected).toMatchObject({ best_rank: 1, index_miss: null });
    }
  });

  it("says the check is unavailable while an agent's vectors have no copy", async () => {
    useExactLimits({ chunks: 0 });
    const a = newAgent("misses uncopied");
    for (let i = 0; i < 3; i++) await ingest(a.id, `u-${i}.md`, article(500 + i), 2000, 0);
    db()
      .prepare(
        `DELETE FROM chunk_vectors WHERE document_id IN (${listDocuments(a.id)
          .map((d) => d.id)
          .join(",")})`,
      )
      .run();
    const ins = await inspectQuery(a.id, `${word(501)} refund`, 2);
    expect(ins).toMatchObject({ ranked_exactly: false, exact_unavailable: true, index_misses: [], total_chunks: 3 });
  });
});

describe("missesAgainst", () => {
  const c = (document_id: number, score: number) => ({ document_id, chunk_index: 0, score });
  it("names exact top-k chunks the served list lacks, with the first result each is nearer than", () => {
    const served = [c(1, 0.3), c(2, 0.4), c(3, 0.5)];
    const exact = [c(9, 0.1), c(1, 0.3), c(8, 0.35), c(2, 0.4)];
    expect(missesAgainst(served, exact, 3)).toEqual([
      { document_id: 9, chunk_index: 0, distance: 0.1, exact_rank: 1, nearer_than: 1, nearer_than_distance: 0.3 },
      { document_id: 8, chunk_index: 0, distance: 0.35, exact_rank: 3, nearer_than: 2, nearer_than_distance: 0.4 },
    ]);
  });

  it("names nothing when the lists agree, or differ only by a tie at the last result", () => {
    expect(missesAgainst([c(1, 0.3), c(2, 0.4)], [c(1, 0.3), c(2, 0.4)], 2)).toEqual([]);
    expect(missesAgainst([c(1, 0.3), c(2, 0.4)], [c(1, 0.3), c(5, 0.4000001)], 2)).toEqual([]);
  });
});
