import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { embedder } from "../embeddings/configured";
import { ingest, newAgent } from "../../test/helpers";
import { indexBacklog } from "../index-upkeep/health";
import { compactServingText, compactState, compactVectors, useExactLimits, warmExactVectors } from "./exact";
import { embedForAgent, searchAgentDocuments } from "./retrieve";
import { exactRanks } from "./inspect-misses";
import { inspectQuery } from "./inspect";
import { currentIndexRecall } from "./index-recall";

// Agents past EXACT_MAX_CHUNKS (lowered to 10 here) are served from their compact table once it
// is held: the same results as the exact ranking, said so by Index health and the index-recall
// monitor. Memory that cannot hold a table leaves the agent to Chroma's index, and says so.

const VOCAB = "account password reset login error update install router printer network billing invoice refund order".split(" ");
let seed = 5;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const words = (n: number) => Array.from({ length: n }, () => VOCAB[Math.floor(rand() * VOCAB.length)]).join(" ");

let big = 0;
let other = 0;
beforeAll(async () => {
  big = newAgent("large agent").id;
  other = newAgent("another large agent").id;
  for (let i = 0; i < 12; i++) await ingest(big, `doc-${i}.md`, `${words(120)} qq${i}word ${words(60)}.`, 200, 20);
  for (let i = 0; i < 6; i++) await ingest(other, `doc-${i}.md`, `${words(120)} rr${i}word ${words(60)}.`, 200, 20);
}, 120_000);

afterEach(() => useExactLimits({}));

/** A background load or write is waited for as long as a busy machine takes: the event, not a time, ends the wait. */
const LOADED = { timeout: 90_000, interval: 50 };

const model = () => embedder().model;
const keys = (rs: { document_id: number; chunk_index: number; score: number }[]) => rs.map((r) => [r.document_id, r.chunk_index, r.score]);

describe("an agent past the exact limit", () => {
  it("is served by the index while its compact table loads, then from the table: the exact ranking, said so", async () => {
    useExactLimits({ chunks: 10 });
    expect(compactState(big, model()).served).toBe("index");
    expect(compactServingText(big, model())).toMatch(/^Chroma's index until its compact table is loaded/);
    // The first search never waits for a table built from SQLite: it starts the load.
    await searchAgentDocuments(big, "qq3word refund", 5);
    await expect.poll(() => compactState(big, model()).served, LOADED).toBe("compact");
    expect(compactServingText(big, model())).toMatch(/^ranked exactly from its compact table \([\d.]+ MB\)$/);

    for (const query of ["qq3word refund", "qq7word", words(5)]) {
      const results = await searchAgentDocuments(big, query, 8);
      const { vectors } = await embedForAgent(big, [query]);
      const exact = (await exactRanks(big, model(), vectors[0], 8, []))!.exact;
      expect(keys(results.map((r) => ({ ...r, score: r.score })))).toEqual(keys(exact));
    }
    const seen = await inspectQuery(big, "qq5word", 5);
    expect(seen.ranked_exactly).toBe(true);
    expect(seen.index_misses).toEqual([]);
    const health = indexBacklog().exact.large_agents.find((a) => a.agent_id === big)!;
    expect(health.serving).toMatch(/^ranked exactly from its compact table/);
    expect(currentIndexRecall(big).serving).toMatch(/^ranked exactly from its compact table/);
  });

  it("is left to the index when memory cannot hold its table, and Index health and the monitor say why", async () => {
    useExactLimits({ chunks: 10, memoryMb: 0.05 });
    const results = await searchAgentDocuments(big, "qq3word", 5);
    expect(results.length).toBe(5); // answered, by Chroma's index
    const state = compactState(big, model());
    expect(state).toMatchObject({ served: "index", reason: "memory" });
    expect(await compactVectors(big, model())).toBeNull();
    const said =
      /^Chroma's index: memory cannot hold its compact table \([\d,]+ MB needed beside the tables of agents searched more; EXACT_MEMORY_MB is 0\.05\)$/;
    expect(compactServingText(big, model())).toMatch(said);
    expect(indexBacklog().exact.large_agents.find((a) => a.agent_id === big)?.serving).toMatch(said);
    expect(currentIndexRecall(big).serving).toMatch(said);
    const seen = await inspectQuery(big, "qq3word", 5);
    expect(seen.ranked_exactly).toBe(false); // the inspector checks the index's answer against a scan of the copy
    expect(seen.exact_unavailable).toBe(false);
  });

  it("removes the files of deleted agents' compact tables at start, and keeps the others'", async () => {
    useExactLimits({ chunks: 10 });
    await compactVectors(big, model(), { wait: true });
    const dir = path.join(process.env.DATA_DIR!, "compact");
    await expect.poll(() => fs.readdirSync(dir).some((f) => f.startsWith(`agent-${big}-`) && f.endsWith(".table")), LOADED).toBe(true);
    fs.writeFileSync(path.join(dir, "agent-987654-0123456789ab.table"), "left by a deleted agent");
    fs.writeFileSync(path.join(dir, "agent-987654-0123456789ab.x1.floats"), "left by a deleted agent");
    await warmExactVectors(model(), []);
    const left = fs.readdirSync(dir);
    expect(left.filter((f) => f.startsWith("agent-987654-"))).toEqual([]);
    expect(left.filter((f) => f.startsWith(`agent-${big}-`)).length).toBeGreaterThanOrEqual(2); // its table and float file
  });

  it("keeps the table of the agent searched most when memory holds one: the other is refused, not swapped in", async () => {
    useExactLimits({ chunks: 10 });
    const one = (await compactVectors(big, model(), { wait: true }))!.bytes;
    // Room for the larger table alone.
    useExactLimits({ chunks: 10, memoryMb: (one * 1.5) / (1024 * 1024) });
    for (let i = 0; i < 3; i++) await searchAgentDocuments(big, `qq${i}word`, 3);
    await expect.poll(() => compactState(big, model()).served, LOADED).toBe("compact");
    await searchAgentDocuments(other, "rr1word", 3);
    expect(compactState(other, model())).toMatchObject({ served: "index", reason: "memory" });
    expect(compactState(big, model()).served).toBe("compact");
    // Searched more than the first one since, the other agent takes the memory.
    for (let i = 0; i < 5; i++) await searchAgentDocuments(other, `rr${i}word`, 3);
    await expect.poll(() => compactState(other, model()).served, LOADED).toBe("compact");
    expect(compactState(big, model()).served).toBe("index");
  });
});
