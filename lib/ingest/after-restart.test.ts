import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Collection } from "chromadb";
import { embedder } from "../embeddings/configured";
import { commitReady, insertDocument, listDocuments } from "../db/documents";
import { chunkText } from "./chunking";
import { env } from "../env.mjs";
import { chroma, chromaUrl, chunkId, collectionName, DISTANCE_SPACE, HNSW } from "../vector-store/client";
import { rebuildState } from "../vector-store/rebuild";
import { addChunks, agentVectors, nearestIds, parseChunkId, queryAgent as queryAgentWithLost } from "../vector-store/chunks";
import { clearUnreachable, markUnreachable, unreachableOf } from "../db/unreachable";
import { chromaFetch } from "../vector-store/fetch";
import { ingest, newAgent } from "../../test/helpers";
import { auditIndex } from "./audit";
import { recheckState, watchChromaRestarts } from "./after-restart";

// This file's collection for the app's model is made before any ingest with 2 neighbours per node
// and ef 1, so its graph certainly loses nodes: what a Chroma killed mid-write was seen to leave.

const TOPICS = ["refund", "invoice", "password", "shipping", "warranty", "coupon", "printer", "locker", "badge", "parking", "lunch", "laptop"];
const article = (topic: string, i: number) =>
  `# ${topic} ${i}\n\n` + Array.from({ length: 6 }, (_, p) => `Part ${p} on the ${topic} desk, case ${i}-${p}, and who to ask about a ${topic}.`).join("\n\n");

async function lostChunks(collection: Collection, agentIds: number[]): Promise<Set<string>> {
  const lost = new Set<string>();
  for (const agentId of agentIds) {
    const ids = listDocuments(agentId).flatMap((d) => Array.from({ length: d.chunk_count }, (_, k) => chunkId(d.id, k)));
    for (const v of await agentVectors(collection, agentId, ids)) {
      const [hits] = await nearestIds(collection, agentId, [v.embedding], 10);
      if (!hits.ids.includes(v.id)) lost.add(v.id);
    }
  }
  return lost;
}

describe("the index check after Chroma restarts", () => {
  it("writes again every chunk a query by its own vector cannot return, and rebuilds the index after an unclean restart", async () => {
    const e = embedder();
    await e.embed(["warm-up"]);
    const collection = await chroma().createCollection({
      name: collectionName(e.model, e.dimension),
      embeddingFunction: null,
      configuration: { hnsw: { space: DISTANCE_SPACE, max_neighbors: 2, ef_construction: 2, ef_search: 1 } },
      metadata: { embedding_model: e.model, embedding_dimension: e.dimension, distance_space: DISTANCE_SPACE },
    });
    const agents = [newAgent("recheck"), newAgent("recheck other")];
    for (const [i, topic] of TOPICS.entries()) await ingest(agents[i % 2].id, `${topic}.md`, article(topic, i), 120, 0);
    const before = new Map<string, number[]>();
    for (const a of agents) {
      const ids = listDocuments(a.id).flatMap((d) => Array.from({ length: d.chunk_count }, (_, k) => chunkId(d.id, k)));
      for (const v of await agentVectors(collection, a.id, ids)) before.set(v.id, v.embedding);
    }
    const lost = await lostChunks(collection, agents.map((a) => a.id));
    expect(lost.size).toBeGreaterThan(0);

    // A chunk kept as unreachable is ranked by its exact distance in every query of its agent.
    const lostKeys = [...lost].map((id) => ({ id, ...parseChunkId(id)! }));
    const owner = (documentId: number) => agents.find((a) => listDocuments(a.id).some((d) => d.id === documentId))!.id;
    for (const k of lostKeys) markUnreachable(owner(k.document_id), [k]);
    for (const k of lostKeys) {
      const [raw] = await nearestIds(collection, owner(k.document_id), [before.get(k.id)!], 10);
      expect(raw.ids).not.toContain(k.id);
      const [hits] = await queryAgentWithLost(collection, owner(k.document_id), [before.get(k.id)!], 10);
      expect(hits.map((h) => chunkId(h.document_id, h.chunk_index))).toContain(k.id);
      expect(hits.find((h) => chunkId(h.document_id, h.chunk_index) === k.id)!.score).toBeLessThan(1e-4);
      // At most k, nearest first (a graph this sparse can return fewer than k, and not always the same).
      expect(hits.length).toBeLessThanOrEqual(10);
      expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((x, y) => x - y));
    }
    clearUnreachable(lostKeys);

    // Nothing happens until Chroma has restarted from an unclean exit.
    watchChromaRestarts(100);
    await new Promise((r) => setTimeout(r, 300));
    expect(recheckState()).toMatchObject({ state: "idle", last_finished_at: null });

    // Chroma answering after refused connections (any Chroma, CHROMA_URL too) asks for a pass: it
    // checks every chunk and writes again what a query by its own vector cannot return.
    const f = chromaFetch(2_000);
    await expect(f("http://127.0.0.1:1/api/v2/heartbeat")).rejects.toThrow(/not reachable/);
    expect(recheckState().state).toBe("idle");
    await f(`${chromaUrl()}/api/v2/heartbeat`);
    expect(recheckState()).toMatchObject({ state: "waiting", reason: "Chroma answered again after refusing connections" });
    await expect.poll(() => recheckState().last_finished_at, { timeout: 60_000 }).not.toBeNull();
    const done = recheckState();
    expect(done).toMatchObject({ state: "idle", checked: before.size, total: before.size });
    // Writing a node again can cut another off a graph this sparse: that one is found later in the pass.
    // Queries of a graph this sparse do not always miss the same chunks, so the pass's count can
    // differ from the one above by a chunk or two; it wrote some again and left fewer lost.
    expect(done.rewritten).toBeGreaterThan(0);
    // What it says is still lost is what a search still cannot return; none went missing or changed.
    expect((await lostChunks(collection, agents.map((a) => a.id))).size).toBe(done.still_unreachable);
    expect(done.still_unreachable).toBeLessThan(lost.size);
    // Those are kept, and every search of their agent ranks them by their exact distance: through
    // the app's query, each chunk is found by its own vector.
    expect(unreachableOf(agents[0].id).length + unreachableOf(agents[1].id).length).toBe(done.still_unreachable);
    const everyChunkFound = async () => {
      for (const a of agents) {
        const ids = listDocuments(a.id).flatMap((d) => Array.from({ length: d.chunk_count }, (_, k) => chunkId(d.id, k)));
        for (const v of await agentVectors(collection, a.id, ids)) {
          const [hits] = await queryAgentWithLost(collection, a.id, [v.embedding], 10);
          expect(hits.map((h) => chunkId(h.document_id, h.chunk_index)), v.id).toContain(v.id);
          expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((x, y) => x - y));
        }
      }
    };
    await everyChunkFound();
    const unchanged = async () => {
      const report = await auditIndex();
      expect(report.orphan_vectors).toEqual([]);
      expect(report.missing_vectors).toEqual([]);
      expect(report.count_mismatches).toEqual([]);
      let n = 0;
      for (const a of agents) {
        const ids = listDocuments(a.id).flatMap((d) => Array.from({ length: d.chunk_count }, (_, k) => chunkId(d.id, k)));
        for (const v of await agentVectors(collection, a.id, ids)) {
          const old = before.get(v.id)!;
          expect(Math.max(...v.embedding.map((x, i) => Math.abs(x - old[i])))).toBeLessThan(1e-6);
          n++;
        }
      }
      expect(n).toBe(before.size);
    };
    await unchanged();
    // A reconnection does not rebuild the index: nothing says the graph on disk was damaged.
    expect(rebuildState().last_finished_at).toBeNull();

    // The launcher counts a restart from an unclean exit; the watch sees it, rebuilds the index
    // from the stored vectors (a new graph, with the app's settings) and then checks every chunk.
    const chromaDir = path.join(env().DATA_DIR, "chroma");
    fs.mkdirSync(chromaDir, { recursive: true });
    fs.writeFileSync(path.join(chromaDir, "unclean-restarts"), "1\n");
    await expect.poll(() => recheckState().last_finished_at, { timeout: 60_000 }).not.toBe(done.last_finished_at);
    const afterRebuild = recheckState();
    expect(afterRebuild).toMatchObject({ state: "idle", reason: "Chroma restarted after an unclean exit", checked: before.size, rewritten: 0, still_unreachable: 0 });
    expect(rebuildState()).toMatchObject({ state: "idle", last_vectors: before.size, last_error: null, reason: "Chroma restarted after an unclean exit" });
    // The new graph returns every chunk to a query by its own vector, so nothing is kept any more.
    expect((await lostChunks(collection, agents.map((a) => a.id))).size).toBe(0);
    expect(unreachableOf(agents[0].id).length + unreachableOf(agents[1].id).length).toBe(0);
    await everyChunkFound();
    await unchanged();
    // Under the same name, with the app's HNSW settings instead of the damaged ones.
    const now = await chroma().getCollection({ name: collectionName(e.model, e.dimension) });
    expect(now.id).not.toBe(collection.id);
    expect(now.configuration.hnsw).toMatchObject({ max_neighbors: HNSW.max_neighbors, ef_construction: HNSW.ef_construction });

    // Checked once per restart: the count is recorded and the next looks start nothing.
    expect(fs.readFileSync(path.join(env().DATA_DIR, "unclean-restarts-checked"), "utf8").trim()).toBe("1");
    await new Promise((r) => setTimeout(r, 400));
    expect(recheckState().last_finished_at).toBe(afterRebuild.last_finished_at);

    // For a while after a restart, documents that become ready are checked too, within seconds:
    // six written to Chroma first, then made ready at once, so one pass takes them all.
    expect(Date.parse(recheckState().following_until!)).toBeGreaterThan(Date.now() + 60_000);
    const newBefore = recheckState().last_finished_at;
    const fresh: { agentId: number; id: number; filename: string; count: number }[] = [];
    const newIds: { agentId: number; ids: string[] }[] = [];
    for (const [i, topic] of ["kettle", "ladder", "mirror", "pillow", "rocket", "saddle"].entries()) {
      const agentId = agents[i % 2].id;
      const text = article(topic, 20 + i);
      const chunks = chunkText(text, 120, 0, "boundary");
      const id = insertDocument(
        { agent_id: agentId, filename: `${topic}.md`, type: "md", sha256: `fresh-${topic}`, bytes: text.length, chunk_size: 120, chunk_overlap: 0, chunk_strategy: "boundary", text, embedding_model: e.model },
        chunks,
      );
      await addChunks(collection, { agentId, documentId: id }, chunks, await e.embed(chunks.map((c) => c.text)));
      fresh.push({ agentId, id, filename: `${topic}.md`, count: chunks.length });
      newIds.push({ agentId, ids: chunks.map((c) => chunkId(id, c.index)) });
    }
    let lostBefore = 0;
    for (const { agentId, ids } of newIds) {
      for (const v of await agentVectors(collection, agentId, ids)) {
        const [hits] = await nearestIds(collection, agentId, [v.embedding], 10);
        if (!hits.ids.includes(v.id)) lostBefore++;
      }
    }
    // Asked for in the same turn, so they share one transaction: no pass can see some without the others.
    await Promise.all(fresh.map((f) => commitReady(f.agentId, f.id, f.filename, f.count)));
    await expect.poll(() => {
      const r = recheckState();
      return r.state === "idle" && r.last_finished_at !== newBefore && r.unchecked_documents === 0;
    }, { timeout: 60_000 }).toBe(true);
    expect(recheckState().checked).toBe(fresh.reduce((n, f) => n + f.count, 0));
    expect(recheckState().rewritten).toBeGreaterThanOrEqual(lostBefore);
  }, 180_000);
});
