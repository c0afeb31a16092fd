import { describe, expect, it } from "vitest";
import type { Collection } from "chromadb";
import { embedder } from "../embeddings/configured";
import { chunkText } from "../core/chunking";
import { newAgent, vectorsOf } from "../../test/helpers";
import { addChunks } from "./chunks";
import { collectionFor } from "./client";

/** Counts the add requests sent to Chroma over HTTP (how many records each carried); `sent` settles when the first goes. */
function countAdds(collection: Collection) {
  const calls: number[] = [];
  let firstSent!: () => void;
  const sent = new Promise<void>((resolve) => (firstSent = resolve));
  const original = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (url.endsWith(`/collections/${collection.id}/add`)) {
      calls.push((JSON.parse(String(init?.body)) as { ids: string[] }).ids.length);
      firstSent();
    }
    return original(input, init);
  };
  return { calls, sent, restore: () => (globalThis.fetch = original) };
}

/**
 * A clock for the adds that stands still unless the test moves it, so "a while since the last
 * search" is a step, not a sleep; `nextWait()` settles when an add next waits (sleeps) on it.
 * It never goes back: each one starts where the real clock or the last one left off, at a whole
 * millisecond so that moving it by the window lands exactly on it (no float rounding).
 */
let stoppedAt = 0;
async function stoppedClock() {
  const { useAddClock } = await import("./batched-add");
  let now = Math.ceil(Math.max(performance.now(), stoppedAt));
  const waiters: (() => void)[] = [];
  const restore = useAddClock({
    now: () => now,
    sleep: () => {
      for (const waiter of waiters.splice(0)) waiter();
      return new Promise((resolve) => setImmediate(resolve));
    },
  });
  return {
    advance: (ms: number) => void (stoppedAt = now += ms),
    nextWait: () => new Promise<void>((resolve) => waiters.push(resolve)),
    restore,
  };
}

describe("vectors of documents written at the same time", () => {
  it("share Chroma add requests, and each document's vectors all arrive", async () => {
    const agent = newAgent("shared adds");
    const e = embedder();
    const collection = await collectionFor(e);
    const docs = Array.from({ length: 12 }, (_, i) => chunkText(`Document ${i} about parcels and refunds. `.repeat(20), 200, 20));
    const vectors = await Promise.all(docs.map((chunks) => e.embed(chunks.map((c) => c.text))));
    const adds = countAdds(collection);
    try {
      await Promise.all(docs.map((chunks, i) => addChunks(collection, { agentId: agent.id, documentId: 500_000 + i }, chunks, vectors[i])));
    } finally {
      adds.restore();
    }
    // Handed over in the same turn of the event loop: one request carries them all, the first
    // document's vectors do not go alone.
    expect(adds.calls).toEqual([docs.reduce((n, d) => n + d.length, 0)]);
    for (const [i, chunks] of docs.entries()) expect(await vectorsOf(agent.id, 500_000 + i)).toHaveLength(chunks.length);
  });

  it("arrive in Chroma as written, each component to within a float32 step", async () => {
    const agent = newAgent("vectors as written");
    const e = embedder();
    const collection = await collectionFor(e);
    const chunks = chunkText("Parcels, refunds and invoices. ".repeat(40), 200, 20);
    const vectors = await e.embed(chunks.map((c) => c.text));
    await addChunks(collection, { agentId: agent.id, documentId: 650_001 }, chunks, vectors);
    const got = await collection.get({ ids: chunks.map((c) => `doc650001#${c.index}`), include: ["embeddings", "metadatas"] });
    expect(got.ids).toHaveLength(chunks.length);
    for (const [i, id] of got.ids.entries()) {
      const index = Number(id.split("#")[1]);
      expect(got.metadatas[i]).toEqual({ agent_id: agent.id, document_id: 650_001, chunk_index: index });
      // Chroma prints float32 values with 8 significant digits: equal to about one float32 step.
      const back = got.embeddings[i];
      expect(back).toHaveLength(vectors[index].length);
      expect(Math.max(...vectors[index].map((x, j) => Math.abs(x - back[j])))).toBeLessThan(1e-7);
    }
  });

  it("fail together when the add that carried them fails, and the next ones are written normally", async () => {
    const agent = newAgent("shared add fails");
    const e = embedder();
    const collection = await collectionFor(e);
    const chunks = chunkText("Parcels and refunds. ".repeat(30), 200, 20);
    const good = await e.embed(chunks.map((c) => c.text));
    const adds = countAdds(collection);
    const first = addChunks(collection, { agentId: agent.id, documentId: 600_001 }, chunks, good);
    await adds.sent;
    adds.restore();
    // Queued while the first is in flight: one with vectors of the wrong dimension spoils the request it shares.
    const bad = addChunks(
      collection,
      { agentId: agent.id, documentId: 600_002 },
      chunks,
      good.map((v) => v.slice(0, 10)),
    );
    const fellow = addChunks(collection, { agentId: agent.id, documentId: 600_003 }, chunks, good);
    await first;
    await expect(bad).rejects.toThrow();
    await expect(fellow).rejects.toThrow();
    expect(await vectorsOf(agent.id, 600_003)).toEqual([]);
    await addChunks(collection, { agentId: agent.id, documentId: 600_004 }, chunks, good);
    expect(await vectorsOf(agent.id, 600_004)).toHaveLength(chunks.length);
  });
});

describe("adds while searches come in", () => {
  it("wait for a search in flight and go in smaller requests, and at full size when nobody searches", async () => {
    const { asSearch, ADD_BATCH_WHILE_SEARCHING, SEARCH_ACTIVE_MS } = await import("./batched-add");
    const agent = newAgent("adds give way");
    const e = embedder();
    const collection = await collectionFor(e);
    const chunks = Array.from({ length: 450 }, (_, index) => ({ index }));
    const vectors = await e.embed(chunks.map((c) => `chunk ${c.index} about parcels`));
    const clock = await stoppedClock();
    try {
      // Nobody searched for a while (a fresh process): one request.
      clock.advance(SEARCH_ACTIVE_MS);
      let adds = countAdds(collection);
      await addChunks(collection, { agentId: agent.id, documentId: 700_001 }, chunks, vectors).finally(adds.restore);
      expect(adds.calls).toEqual([450]);

      // A search in flight: the add waits for it (the clock stands still, so it never waits long
      // enough to go anyway), then goes in requests of at most ADD_BATCH_WHILE_SEARCHING.
      adds = countAdds(collection);
      let endSearch!: () => void;
      const search = asSearch(() => new Promise<void>((resolve) => (endSearch = resolve)));
      const waits = clock.nextWait();
      const write = addChunks(collection, { agentId: agent.id, documentId: 700_002 }, chunks, vectors);
      expect(await Promise.race([waits.then(() => "waits"), adds.sent.then(() => "sent")])).toBe("waits");
      expect(adds.calls).toEqual([]);
      endSearch();
      await search;
      await write.finally(adds.restore);
      expect(Math.max(...adds.calls)).toBeLessThanOrEqual(ADD_BATCH_WHILE_SEARCHING);
      expect(adds.calls.reduce((a, b) => a + b, 0)).toBe(450);
      expect(await vectorsOf(agent.id, 700_002)).toHaveLength(450);
    } finally {
      clock.restore();
    }
  });

  it("do not give way to the health check's probe: a monitor polling /api/health is not someone searching", async () => {
    const { checkHealth, useHealthDeadline } = await import("../index-upkeep/health");
    const { SEARCH_ACTIVE_MS } = await import("./batched-add");
    const agent = newAgent("health probe");
    const e = embedder();
    const collection = await collectionFor(e);
    const chunks = Array.from({ length: 200 }, (_, index) => ({ index }));
    const vectors = await e.embed(chunks.map((c) => `chunk ${c.index} about invoices`));
    const clock = await stoppedClock();
    // Healthy however long a busy machine's Chroma takes to answer (within CHROMA_TIMEOUT_MS): the 3 s probe deadline is not under test here.
    const undoDeadline = useHealthDeadline(Number.POSITIVE_INFINITY);
    try {
      // Past the last search of the test before; the clock then stands still through the probe and the add.
      clock.advance(SEARCH_ACTIVE_MS);
      expect((await checkHealth()).ok).toBe(true);
      const adds = countAdds(collection);
      await addChunks(collection, { agentId: agent.id, documentId: 700_003 }, chunks, vectors).finally(adds.restore);
      expect(adds.calls).toEqual([200]);
    } finally {
      undoDeadline();
      clock.restore();
    }
  });
});
