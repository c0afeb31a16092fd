import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Collection } from "chromadb";
import { commitReady, insertDocument, listDocuments } from "../db/documents";
import { chunkText } from "../core/chunking";
import { env } from "../env.mjs";
import { chroma, chromaUrl, chunkId, collectionName, HNSW } from "../vector-store/client";
import { agentVectors, deleteDocumentVectors, nearestIds, parseChunkId } from "../vector-store/chunks";
import { queryAgent as queryAgentWithLost } from "../retrieval/index-candidates";
import { addNotedChunks } from "../ingest/write-chunks";
import { clearUnreachable, markUnreachable, unreachableOf } from "../db/unreachable";
import { chromaFetch } from "../vector-store/fetch";
import { ingest, newAgent, sparseCollection } from "../../test/helpers";
import { rebuildState } from "./rebuild";
import { auditIndex } from "./audit";
import { recheckState, restartWatchLooks, watchChromaRestarts } from "./after-restart";

// This file's collection for the app's model is made before any ingest with 2 neighbours per node
// and ef 1, so its graph loses nodes (15 to 27 of 72 in the runs seen): what a Chroma killed
// mid-write was seen to leave. Which ones, and how many, is chance: the graph is built anew each
// run. A query of a graph that does not change answers the same each time (asked 12 times over
// in a probe, by one vector and 100 at a time, k 10 and 11), so what this test asserts is what
// follows from that, never how many chunks a graph happens to lose, or that a rewrite leaves fewer.

const TOPICS = [
  "refund",
  "invoice",
  "password",
  "shipping",
  "warranty",
  "coupon",
  "printer",
  "locker",
  "badge",
  "parking",
  "lunch",
  "laptop",
];
const article = (topic: string, i: number) =>
  `# ${topic} ${i}\n\n` +
  Array.from({ length: 6 }, (_, p) => `Part ${p} on the ${topic} desk, case ${i}-${p}, and who to ask about a ${topic}.`).join("\n\n");

/** Chunks a query by their own vector does not return (among 10, all farther than the chunk itself). */
async function lostChunks(collection: Collection, agentIds: number[]): Promise<Set<string>> {
  const lost = new Set<string>();
  for (const agentId of agentIds) {
    const ids = listDocuments(agentId).flatMap((d) => Array.from({ length: d.chunk_count }, (_, k) => chunkId(d.id, k)));
    for (const v of await agentVectors(collection, agentId, ids)) {
      const [hits] = await nearestIds(collection, agentId, [v.embedding], 10);
      if (!hits.ids.includes(v.id) && (hits.ids.length < 10 || (hits.distances.at(-1) ?? 1) > 1e-4)) lost.add(v.id);
    }
  }
  return lost;
}

describe("the index check after Chroma restarts", () => {
  it("writes again every chunk a query by its own vector cannot return, and rebuilds the index after an unclean restart", async () => {
    const { e, collection } = await sparseCollection();
    const agents = [newAgent("recheck"), newAgent("recheck other")];
    for (const [i, topic] of TOPICS.entries()) await ingest(agents[i % 2].id, `${topic}.md`, article(topic, i), 120, 0);
    const before = new Map<string, number[]>();
    for (const a of agents) {
      const ids = listDocuments(a.id).flatMap((d) => Array.from({ length: d.chunk_count }, (_, k) => chunkId(d.id, k)));
      for (const v of await agentVectors(collection, a.id, ids)) before.set(v.id, v.embedding);
    }
    // The chunks this graph lost this time (none is possible in principle, though never seen).
    const lost = await lostChunks(
      collection,
      agents.map((a) => a.id),
    );

    // A chunk kept as unreachable is ranked by its exact distance in every query of its agent. The
    // chunks kept here are chosen by the test, not by chance: the first chunk of every document,
    // and whatever the graph lost.
    const owner = (documentId: number) => agents.find((a) => listDocuments(a.id).some((d) => d.id === documentId))!.id;
    const firsts = agents.flatMap((a) => listDocuments(a.id).map((d) => chunkId(d.id, 0)));
    const keptKeys = [...new Set([...firsts, ...lost])].map((id) => ({ id, ...parseChunkId(id)! }));
    for (const k of keptKeys) markUnreachable(owner(k.document_id), [k]);
    expect(unreachableOf(agents[0].id).length + unreachableOf(agents[1].id).length).toBe(keptKeys.length);
    for (const k of keptKeys) {
      const [hits] = await queryAgentWithLost(collection, owner(k.document_id), [before.get(k.id)!], 10);
      expect(
        hits.map((h) => chunkId(h.document_id, h.chunk_index)),
        k.id,
      ).toContain(k.id);
      expect(hits.find((h) => chunkId(h.document_id, h.chunk_index) === k.id)!.score).toBeLessThan(1e-4);
      // At most k, nearest first (a graph this sparse can return fewer than k).
      expect(hits.length).toBeLessThanOrEqual(10);
      expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((x, y) => x - y));
    }
    clearUnreachable(keptKeys);

    // Nothing happens until Chroma has restarted from an unclean exit: the watch looks (at once, then
    // every 100 ms) and starts nothing. Each look asks for a pass before it returns, so after the
    // looks counted here a pass would show as waiting or running.
    watchChromaRestarts(100);
    const firstLooks = restartWatchLooks();
    expect(firstLooks).toBeGreaterThanOrEqual(1);
    await expect.poll(() => restartWatchLooks(), { timeout: 30_000 }).toBeGreaterThanOrEqual(firstLooks + 2);
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
    expect(done).toMatchObject({ state: "idle", checked: before.size, total: before.size, rewritten_since_start: done.rewritten });
    // The pass asks the graph the test asked above the same questions, one agent at a time, and
    // the graph is unchanged until it writes: if the first agent it looks at lost a chunk above, it
    // finds that one and writes it again; if not, it has written nothing when it looks at the
    // other. So a chunk lost above means the pass wrote something again. How many stay lost is not
    // held to anything: writing a node again can cut others off a graph this sparse (a fresh clone
    // once left 13 of 13).
    if (lost.size > 0) expect(done.rewritten).toBeGreaterThan(0);
    else console.warn("[after-restart test] this run's graph lost no chunk: the pass had nothing to write again");
    // A chunk is kept as unreachable only after it was written again and still not returned.
    if (done.still_unreachable > 0) expect(done.rewritten).toBeGreaterThan(0);
    // What it says is still lost is what it kept, and every search of their agent ranks those by
    // their exact distance: through the app's query, each chunk is found by its own vector.
    expect(unreachableOf(agents[0].id).length + unreachableOf(agents[1].id).length).toBe(done.still_unreachable);
    expect(done.kept_unreachable).toBe(done.still_unreachable);
    const everyChunkFound = async () => {
      for (const a of agents) {
        const ids = listDocuments(a.id).flatMap((d) => Array.from({ length: d.chunk_count }, (_, k) => chunkId(d.id, k)));
        for (const v of await agentVectors(collection, a.id, ids)) {
          const [hits] = await queryAgentWithLost(collection, a.id, [v.embedding], 10);
          expect(
            hits.map((h) => chunkId(h.document_id, h.chunk_index)),
            v.id,
          ).toContain(v.id);
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

    // The launcher counts a restart from an unclean exit, which cut off a write: one document's
    // vectors are gone. The watch sees the restart, checks the newest chunks (here every one),
    // writes the lost ones from the app's copy, and since it found damage rebuilds the index
    // from the stored vectors (a new graph, with the app's settings), then checks again.
    const cutOff = listDocuments(agents[1].id)[0];
    await deleteDocumentVectors(collection, agents[1].id, cutOff.id);
    const chromaDir = path.join(env().DATA_DIR, "chroma");
    fs.mkdirSync(chromaDir, { recursive: true });
    fs.writeFileSync(path.join(chromaDir, "unclean-restarts"), "1\n");
    await expect.poll(() => recheckState().last_finished_at, { timeout: 60_000 }).not.toBe(done.last_finished_at);
    const afterRebuild = recheckState();
    expect(afterRebuild).toMatchObject({
      state: "idle",
      reason: "Chroma restarted after an unclean exit",
      checked: before.size,
      still_unreachable: 0,
      unchecked_documents: 0,
    });
    expect(afterRebuild.rewritten).toBeGreaterThanOrEqual(cutOff.chunk_count);
    expect(rebuildState()).toMatchObject({
      state: "idle",
      last_vectors: before.size,
      last_error: null,
      reason: "Chroma restarted after an unclean exit",
    });
    // The new graph returns every chunk to a query by its own vector, so nothing is kept any more.
    expect(
      (
        await lostChunks(
          collection,
          agents.map((a) => a.id),
        )
      ).size,
    ).toBe(0);
    expect(unreachableOf(agents[0].id).length + unreachableOf(agents[1].id).length).toBe(0);
    await everyChunkFound();
    await unchanged();
    // Under the same name, with the app's HNSW settings instead of the damaged ones.
    const now = await chroma().getCollection({ name: collectionName(e.model, e.dimension) });
    expect(now.id).not.toBe(collection.id);
    expect(now.configuration.hnsw).toMatchObject({ max_neighbors: HNSW.max_neighbors, ef_construction: HNSW.ef_construction });

    // Checked once per restart: the count is recorded and the next looks start nothing.
    expect(fs.readFileSync(path.join(env().DATA_DIR, "unclean-restarts-checked"), "utf8").trim()).toBe("1");
    const looksAfter = restartWatchLooks();
    await expect.poll(() => restartWatchLooks(), { timeout: 30_000 }).toBeGreaterThanOrEqual(looksAfter + 2);
    expect(recheckState()).toMatchObject({ state: "idle", last_finished_at: afterRebuild.last_finished_at });

    // For a while after a restart, documents that become ready are checked too, within seconds:
    // six written to Chroma first, then made ready at once, so one pass takes them all.
    expect(Date.parse(recheckState().following_until!)).toBeGreaterThan(Date.now() + 60_000);
    const newBefore = recheckState().last_finished_at;
    const fresh: { agentId: number; id: number; filename: string; count: number }[] = [];
    for (const [i, topic] of ["kettle", "ladder", "mirror", "pillow", "rocket", "saddle"].entries()) {
      const agentId = agents[i % 2].id;
      const text = article(topic, 20 + i);
      const chunks = chunkText(text, 120, 0, "boundary");
      const id = insertDocument(
        {
          agent_id: agentId,
          filename: `${topic}.md`,
          type: "md",
          sha256: `fresh-${topic}`,
          bytes: text.length,
          chunk_size: 120,
          chunk_overlap: 0,
          chunk_strategy: "boundary",
          text,
          embedding_model: e.model,
        },
        chunks,
      );
      await addNotedChunks(collection, { agentId, documentId: id }, chunks, await e.embed(chunks.map((c) => c.text)));
      fresh.push({ agentId, id, filename: `${topic}.md`, count: chunks.length });
    }
    // Asked for in the same turn, so they share one transaction: no pass can see some without the others.
    await Promise.all(fresh.map((f) => commitReady(f.agentId, f.id, f.filename, f.count)));
    await expect
      .poll(
        () => {
          const r = recheckState();
          return r.state === "idle" && r.last_finished_at !== newBefore && r.unchecked_documents === 0;
        },
        { timeout: 60_000 },
      )
      .toBe(true);
    // That pass checked the new documents' chunks, and only those; what it could not make
    // returnable is kept, and every chunk, old and new, is found through the app's query.
    const followed = recheckState();
    expect(followed.checked).toBe(fresh.reduce((n, f) => n + f.count, 0));
    expect(unreachableOf(agents[0].id).length + unreachableOf(agents[1].id).length).toBe(followed.still_unreachable);
    await everyChunkFound();
  }, 180_000);
});
