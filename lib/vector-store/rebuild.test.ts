import { describe, expect, it } from "vitest";
import { embedder } from "../embeddings/configured";
import { listDocuments } from "../db/documents";
import { chroma, chunkId, collectionFor, collectionName, live, REBUILD_SUFFIX, RETIRED_SUFFIX } from "./client";
import { addChunks, agentVectors, cosineDistance, deleteDocumentVectors, queryAgent, unreachableAmong } from "./chunks";
import { rebuildIndex, rebuildState } from "./rebuild";
import { vectorWritesPaused, vectorWritesWaiting } from "./write-gate";
import { ingest, newAgent, vectorsOf } from "../../test/helpers";

const names = async () => {
  const out: string[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await chroma().listCollections({ limit: 100, offset });
    out.push(...page.map((c) => c.name));
    if (page.length < 100) return out;
  }
};

describe("rebuilding the vector index", () => {
  it("copies every vector into a new collection that takes the old one's name; searches go on, writes wait and land in the new one", async () => {
    const e = embedder();
    const agent = newAgent("rebuild");
    const other = newAgent("rebuild other");
    await ingest(agent.id, "refunds.md", "Refunds reach the original payment method within ten days.\n\nAsk the billing desk for a refund receipt.", 80, 0);
    await ingest(other.id, "lockers.md", "Lockers on the second floor open with your badge.", 80, 0);
    // Bulk, so that the copy takes long enough to write during it: 3,000 vectors of another agent.
    const bulk = newAgent("rebuild bulk");
    const texts = Array.from({ length: 3_000 }, (_, i) => `bulk chunk ${i} about parcel ${i % 97} and locker ${i % 31}`);
    const vectors = await e.embed(texts);
    for (let d = 0; d < 30; d++) {
      await addChunks(await collectionFor(e), { agentId: bulk.id, documentId: 900_000 + d }, texts.slice(d * 100, d * 100 + 100).map((_, index) => ({ index })), vectors.slice(d * 100, d * 100 + 100));
    }
    const old = await collectionFor(e);
    const total = await old.count();
    const refunds = listDocuments(agent.id)[0];
    const [refundVector] = await e.embed(["refund receipt"]);
    const [before] = await queryAgent(old, agent.id, [refundVector], 3);
    // The exact ranking of the agent's chunks, by the distance of each stored vector: the bulk
    // vectors were written past the ingest's reachability check, so the old graph may already
    // fail to return one of them, and the comparison after the copy must not depend on that.
    const refundIds = Array.from({ length: refunds.chunk_count }, (_, k) => chunkId(refunds.id, k));
    const exact = (await agentVectors(old, agent.id, refundIds))
      .map((v) => ({ document_id: v.document_id, chunk_index: v.chunk_index, score: cosineDistance(refundVector, v.embedding) }))
      .sort((a, b) => a.score - b.score)
      .slice(0, 3);
    expect(exact).toHaveLength(Math.min(3, refunds.chunk_count));

    // The copy is held at its first read of the old collection's vectors (by offset, a page at a
    // time) until the test lets it go: what happens during the copy is checked during the copy,
    // however fast or slow the machine is.
    let copying: () => void = () => {};
    const copyStarted = new Promise<void>((r) => (copying = r));
    let letGo: () => void = () => {};
    const goOn = new Promise<void>((r) => (letGo = r));
    const get = old.get;
    old.get = (async (args?: { offset?: number }) => {
      if (typeof args?.offset === "number") {
        old.get = get;
        copying();
        await goOn;
      }
      return get.call(old, args as never);
    }) as typeof old.get;
    let rebuilding: ReturnType<typeof rebuildIndex>;
    try {
      rebuilding = rebuildIndex(e, "asked for by a test");
      // A second call while it runs joins it.
      expect(rebuildIndex(e, "again")).toBe(rebuilding);
      await copyStarted;
    } finally {
      old.get = get;
    }
    expect(vectorWritesPaused()).toBe(true);
    expect(rebuildState()).toMatchObject({ state: "running", reason: "asked for by a test", copied: 0, total });
    // Searches are answered while it copies, from the old collection.
    const [during] = await queryAgent(old, agent.id, [refundVector], 3);
    expect(during).toEqual(before);
    // An ingest and a removal started now wait at the gate for the copy (the test sees both
    // waiting there, so neither can have been written), then go to the new collection.
    let ingested = false;
    const late = ingest(agent.id, "lunch.md", "Lunch is served in the canteen from noon until two.", 80, 0).then((r) => ((ingested = true), r));
    let removed = false;
    const removal = deleteDocumentVectors(old, bulk.id, 900_000).then(() => (removed = true));
    await expect.poll(() => vectorWritesWaiting(), { timeout: 30_000 }).toBe(2);
    expect([ingested, removed]).toEqual([false, false]);
    expect(await vectorsOf(bulk.id, 900_000)).toHaveLength(100);
    expect(rebuildState()).toMatchObject({ state: "running", copied: 0 });
    letGo();
    const done = await rebuilding;
    expect(vectorWritesWaiting()).toBe(0);
    expect(done).toMatchObject({ state: "idle", last_vectors: total, last_error: null });
    expect((await late).status).toBe("ready");
    await removal;

    // The new collection has the name; the old one gave it up; the app's handle is the new one.
    const fresh = await collectionFor(e);
    expect(fresh.id).not.toBe(old.id);
    expect(fresh.name).toBe(collectionName(e.model, e.dimension));
    expect(await names()).toContain(collectionName(e.model, e.dimension) + RETIRED_SUFFIX);
    expect(await names()).not.toContain(collectionName(e.model, e.dimension) + REBUILD_SUFFIX);
    // Everything was copied, with the same vectors and metadata; the write and removal made
    // during the copy are in the new collection.
    const lunch = listDocuments(agent.id).find((d) => d.filename === "lunch.md")!;
    expect(await fresh.count()).toBe(total - 100 + lunch.chunk_count);
    expect(await vectorsOf(agent.id, lunch.id)).toHaveLength(lunch.chunk_count);
    expect(await vectorsOf(bulk.id, 900_000)).toHaveLength(0);
    expect(await vectorsOf(bulk.id, 900_001)).toHaveLength(100);
    const ids = refundIds;
    const copied = await agentVectors(fresh, agent.id, ids);
    expect(copied.map((v) => v.metadata)).toEqual(ids.map((_, k) => ({ agent_id: agent.id, document_id: refunds.id, chunk_index: k })));
    // Searches through a handle taken before the rebuild reach the new collection, with the same
    // answer: the same chunks at the same distances, except one the new graph cannot return
    // (its near-identical bulk vectors can leave a node without a way in; the check that follows
    // a rebuild handles those), which a query by its own vector then does not find either.
    expect(live(old).id).toBe(fresh.id);
    const [after] = (await queryAgent(old, agent.id, [refundVector], 3)).map((list) => list.filter((r) => r.document_id !== lunch.id));
    const lost = await unreachableAmong(fresh, agent.id, await agentVectors(fresh, agent.id, ids));
    const expected = exact.filter((r) => !lost.has(chunkId(r.document_id, r.chunk_index)));
    expect(lost.size).toBeLessThan(exact.length);
    expect(after.map((r) => [r.document_id, r.chunk_index])).toEqual(expected.map((r) => [r.document_id, r.chunk_index]));
    for (const [i, r] of after.entries()) expect(r.score).toBeCloseTo(expected[i].score, 5);
  }, 120_000);

  it("runs again right after another, while the collection that one replaced is still kept", async () => {
    const e = embedder();
    const agent = newAgent("rebuild twice");
    const doc = await ingest(agent.id, "parking.md", "Parking permits are renewed every January at reception.", 80, 0);
    const name = collectionName(e.model, e.dimension);
    const first = await rebuildIndex(e, "asked for by a test");
    expect(first.last_error).toBeNull();
    expect(await names()).toContain(name + RETIRED_SUFFIX);
    const firstId = (await collectionFor(e)).id;
    const second = await rebuildIndex(e, "asked for again");
    expect(second).toMatchObject({ state: "idle", last_error: null });
    expect(second.last_finished_at).not.toBe(first.last_finished_at);
    const now = await collectionFor(e);
    expect(now.id).not.toBe(firstId);
    expect(now.name).toBe(name);
    expect((await names()).filter((n) => n.startsWith(name))).toEqual(expect.arrayContaining([name, name + RETIRED_SUFFIX]));
    expect(await vectorsOf(agent.id, doc.document_id!)).toHaveLength(doc.chunk_count);
  });

  it("stopped half-way, leaves the old index in use at the next start", async () => {
    const e = embedder();
    const agent = newAgent("rebuild stopped");
    const doc = await ingest(agent.id, "badges.md", "Badges are printed at the front desk on Mondays.", 80, 0);
    const name = collectionName(e.model, e.dimension);
    const current = await collectionFor(e);
    await chroma().deleteCollection({ name: name + RETIRED_SUFFIX }).catch(() => {}); // the first test's, not removed yet
    // As a rebuild that stopped between giving up the old name and taking it: the old collection
    // renamed, a partial copy beside it, and no collection under the name.
    await chroma().createCollection({ name: name + REBUILD_SUFFIX, embeddingFunction: null, metadata: current.metadata ?? undefined });
    await current.modify({ name: name + RETIRED_SUFFIX });
    // A new process: no cached handle.
    (globalThis as { __kbCollections?: Map<string, unknown> }).__kbCollections = undefined;
    const reopened = await collectionFor(e);
    expect(reopened.id).toBe(current.id);
    expect(reopened.name).toBe(name);
    const all = await names();
    expect(all).not.toContain(name + REBUILD_SUFFIX);
    expect(all).not.toContain(name + RETIRED_SUFFIX);
    expect(await vectorsOf(agent.id, doc.document_id!)).toHaveLength(doc.chunk_count);
  });
});
