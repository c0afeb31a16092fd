import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { embedder } from "../embeddings/configured";
import { logToolCall } from "../db/tool-calls";
import { indexRecallHistory, INDEX_RECALL_HISTORY } from "../db/index-recall";
import { chroma, collectionName, DISTANCE_SPACE } from "../vector-store/client";
import { ingest, newAgent } from "../../test/helpers";
import { agentsDue, measureDueAgents } from "../index-upkeep/index-recall-watch";
import { useAddClock } from "../vector-store/batched-add";
import { documentSearchTool } from "./retrieve";
import { useExactLimits } from "./exact";
import { currentIndexRecall, measureIndexRecall, NEVER_MEASURED, NO_SEARCHES, recallAt } from "./index-recall";

// As in exact.test.ts: this file's collection is made before any ingest with 2 neighbours per node
// and ef 1, a graph whose filtered queries miss nearer chunks. Three agents share it; every
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
const query = (n: number) => `${word(n)} ${VOCAB[n % VOCAB.length]}`;

const search = (agentId: number, q: string, source: "api" | "inspector" = "api") =>
  logToolCall({ agentId, tool: "document_search", source, input: { query: q, top_k: 5 }, ok: true, latencyMs: 1, resultCount: 5 });

let agents: { id: number }[] = [];

beforeAll(async () => {
  const e = embedder();
  await e.embed(["warm-up"]);
  await chroma().createCollection({
    name: collectionName(e.model, e.dimension),
    embeddingFunction: null,
    configuration: { hnsw: { space: DISTANCE_SPACE, max_neighbors: 2, ef_construction: 2, ef_search: 1 } },
    metadata: { embedding_model: e.model, embedding_dimension: e.dimension, distance_space: DISTANCE_SPACE },
  });
  agents = [newAgent("recall a"), newAgent("recall b"), newAgent("recall c")];
  let n = 0;
  for (const a of agents) for (let i = 0; i < 40; i++, n++) await ingest(a.id, `doc-${n}.md`, article(n), 2000, 0);
  // Each agent's own searches: its first 20 documents' words, from the agent and from the inspector.
  n = 0;
  for (const a of agents) for (let i = 0; i < 40; i++, n++) if (i < 20) search(a.id, query(n), i % 2 === 0 ? "api" : "inspector");
}, 180_000);

afterEach(() => useExactLimits({}));

describe("recall@k", () => {
  const c = (document_id: number, score: number) => ({ document_id, chunk_index: 0, score });
  it("counts the exact top k and ties with its last; any other chunk is a miss, however near", () => {
    const truth = [[c(1, 0.1), c(2, 0.2), c(3, 0.3)]];
    expect(recallAt(truth, [[c(1, 0.1), c(2, 0.2), c(3, 0.3)]])).toEqual({ recall: 1, nearestMissed: 0 });
    // Chunk 4 is as near as the exact 3rd (within float error): a tie the index may return instead.
    expect(recallAt(truth, [[c(1, 0.1), c(2, 0.2), c(4, 0.3000004)]]).recall).toBe(1);
    // Chunk 9 claims to be nearer than the 3rd but is not among the agent's exact top k.
    expect(recallAt(truth, [[c(9, 0.05), c(2, 0.2), c(3, 0.3)]])).toEqual({ recall: 2 / 3, nearestMissed: 1 });
    expect(recallAt([[]], [[]]).recall).toBeNull();
  });
});

describe("index recall monitor", () => {
  it("with exact serving, what searches get is the exact top 10 while the index alone misses", async () => {
    const measured = [];
    for (const a of agents) measured.push(await measureIndexRecall(a.id));
    console.log(`[index-recall.test] index recall@10: ${measured.map((m) => m.index_recall?.toFixed(3)).join(", ")}`);
    for (const m of measured) {
      expect(m).toMatchObject({
        k: 10,
        queries: 20,
        served_recall: 1,
        served_exactly: true,
        nearest_missed: 0,
        below_threshold: false,
        reason: null,
      });
      expect(m.measured_at).not.toBeNull();
    }
    // The sparse graph alone returns less than the exact top 10.
    for (const m of measured) expect(m.index_recall!).toBeLessThan(1);
    expect(currentIndexRecall(agents[0].id)).toEqual(measured[0]);
  });

  it("with exact serving off, what searches get misses and falls below the threshold", async () => {
    useExactLimits({ chunks: 0 });
    const m = await measureIndexRecall(agents[1].id);
    expect(m).toMatchObject({ queries: 20, served_exactly: false, threshold: 0.95, below_threshold: true });
    expect(m.served_recall!).toBeLessThan(1);
    expect(m.index_recall!).toBeLessThan(1);
  });

  it("replays only the agent's own successful searches, and counts only its own chunks", async () => {
    const d = newAgent("recall d");
    for (let i = 0; i < 3; i++) await ingest(d.id, `d-${i}.md`, article(500 + i), 2000, 0);
    // Its searches name words of agent a's documents: their chunks are the nearest in the collection.
    search(d.id, query(0));
    search(d.id, query(1), "inspector");
    logToolCall({
      agentId: d.id,
      tool: "document_search",
      input: { query: query(2), top_k: 5 },
      ok: false,
      error: "failed",
      latencyMs: 1,
      resultCount: 0,
    });
    const m = await measureIndexRecall(d.id);
    // Had a chunk of agent a's come back, nearer than d's own, it would count as a miss (see recall@k above).
    expect(m).toMatchObject({ queries: 2, served_recall: 1, served_exactly: true, nearest_missed: 0 });
  });

  it("an agent with no searches logged measures nothing, and says so", async () => {
    const e = newAgent("recall e");
    await ingest(e.id, "e.md", article(900), 2000, 0);
    expect(currentIndexRecall(e.id)).toMatchObject({ queries: 0, served_recall: null, measured_at: null, reason: NEVER_MEASURED });
    const m = await measureIndexRecall(e.id);
    expect(m).toMatchObject({
      queries: 0,
      served_recall: null,
      index_recall: null,
      served_exactly: null,
      below_threshold: false,
      reason: NO_SEARCHES,
    });
    expect(m.measured_at).not.toBeNull();
  });

  it("a search through the agent's tool is replayed; the history keeps the newest measurements", async () => {
    const f = newAgent("recall f");
    await ingest(f.id, "f.md", article(901), 2000, 0);
    await documentSearchTool(f.id, query(901), 3);
    for (let i = 0; i < INDEX_RECALL_HISTORY + 2; i++) await measureIndexRecall(f.id);
    expect(indexRecallHistory(f.id)).toHaveLength(INDEX_RECALL_HISTORY);
    expect(currentIndexRecall(f.id)).toMatchObject({ queries: 1, served_recall: 1 });
  });

  it("an agent is due again when its ready set changes or its measurement is old", async () => {
    const g = newAgent("recall g");
    await ingest(g.id, "g.md", article(902), 2000, 0);
    expect(agentsDue()).toContain(g.id);
    await measureIndexRecall(g.id);
    expect(agentsDue()).not.toContain(g.id);
    expect(agentsDue(60 * 60_000, Date.now() + 2 * 60 * 60_000)).toContain(g.id);
    await ingest(g.id, "g2.md", article(903), 2000, 0);
    expect(agentsDue()).toContain(g.id);

    // A pass measures every agent due; a clock that moves on says no search is coming in, so nothing waits.
    let t = 1e12;
    const undo = useAddClock({ now: () => (t += 10_000), sleep: async () => {} });
    try {
      expect(await measureDueAgents()).toBeGreaterThanOrEqual(1);
    } finally {
      undo();
    }
    expect(agentsDue()).toEqual([]);
  });
});
