import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { embedder } from "../embeddings/configured";
import { ingest, newAgent } from "../../test/helpers";
import { listDocuments } from "../db/documents";
import { chunkKey } from "../db/chunks";
import { embedForAgent } from "./retrieve";
import { compactVectors, exactBytesHeld, exactVectors, useExactLimits } from "./exact";
import { compactNearest, compactPlaces, compactRanks } from "./compact";
import { exactRanks, exactRanksOf } from "./inspect-misses";

// An agent past the exact limit held as bytes: its first n must be the exact first n, in the same
// order and at the same distances as a scan of the float32 copy, ties included.
const VOCAB =
  "account password reset login error update install router printer network billing invoice refund order shipping delivery warranty battery screen device email ticket".split(
    " ",
  );
let seed = 11;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const words = (n: number) => Array.from({ length: n }, () => VOCAB[Math.floor(rand() * VOCAB.length)]).join(" ");
const CHUNK = 300;

let agentId = 0;
beforeAll(async () => {
  agentId = newAgent("compact").id;
  for (let i = 0; i < 30; i++) await ingest(agentId, `doc-${i}.md`, `${words(400)} zz${i}tag.`, CHUNK, 40);
  // Two documents whose first chunks are the same text: chunks at the same distance from any query.
  const shared = words(200).padEnd(CHUNK, " ").slice(0, CHUNK);
  await ingest(agentId, "twin-a.md", `${shared}alpha tail of the first twin with ${words(30)}`, CHUNK, 0);
  await ingest(agentId, "twin-b.md", `${shared}beta tail of the second twin with ${words(30)}`, CHUNK, 0);
}, 120_000);

afterEach(() => useExactLimits({}));

/** A background load or write is waited for as long as a busy machine takes: the event, not a time, ends the wait. */
const LOADED = { timeout: 90_000, interval: 50 };

describe("a compact table of an agent past the exact limit", () => {
  it("gives the exact first n, ties included, as a scan of the float32 copy does", async () => {
    useExactLimits({ chunks: 10 });
    const model = embedder().model;
    expect(await exactVectors(agentId, model)).toBeNull();
    const compact = await compactVectors(agentId, model, { wait: true });
    expect(compact?.table?.precision).toBe("i8");
    const queries = [
      ...Array.from({ length: 12 }, (_, i) => `${words(3)} zz${i}tag`),
      words(5),
      "refund",
      "alpha tail",
      VOCAB.slice(0, 8).join(" "),
    ];
    const { vectors } = await embedForAgent(agentId, queries);
    let ties = 0;
    for (const [q, vector] of vectors.entries()) {
      for (const n of [1, 5, 50, 10_000]) {
        // Candidates scored a few at a time for every other query: the pages must add up to the same.
        useExactLimits({ chunks: 10, readChunks: q % 2 === 0 ? 7 : undefined });
        const got = await compactNearest(compact!, model, vector, n);
        const want = (await exactRanks(agentId, model, vector, n, []))!.exact;
        expect(got, `${queries[q]}, n ${n}`).toEqual(want);
        for (let i = 1; i < got.length; i++) if (got[i].score === got[i - 1].score) ties++;
      }
    }
    expect(ties).toBeGreaterThan(0); // the twins' shared chunk came out tied, in document order
  });

  it("ranks any chunk exactly, with no k limit, as a scan of the float32 copy does", async () => {
    useExactLimits({ chunks: 10 });
    const model = embedder().model;
    const compact = (await compactVectors(agentId, model, { wait: true }))!;
    const docs = listDocuments(agentId).filter((d) => d.status === "ready");
    const { vectors } = await embedForAgent(agentId, ["zz3tag refund", "alpha tail", words(6)]);
    let deepest = 0;
    for (const vector of vectors) {
      for (const doc of [docs[0], docs[7], docs.at(-1)!, docs.at(-2)!]) {
        const chunks = Array.from({ length: doc.chunk_count }, (_, i) => ({ document_id: doc.id, chunk_index: i }));
        const want = (await exactRanks(agentId, model, vector, 1, [doc.id]))!.ranks;
        const got = await compactRanks(compact, model, vector, chunks);
        expect(got).toEqual(want);
        deepest = Math.max(deepest, ...want.values());
      }
    }
    expect(deepest).toBeGreaterThan(50); // past any first page of results
    // Without room for a compact table, the same ranks come from a scan of the copy.
    const doc = docs[5];
    const chunks = Array.from({ length: doc.chunk_count }, (_, i) => ({ document_id: doc.id, chunk_index: i }));
    const held = await exactRanksOf(agentId, model, vectors[0], chunks);
    useExactLimits({ chunks: 10, memoryMb: 0.1 });
    expect(await exactRanksOf(agentId, model, vectors[0], chunks)).toEqual(held);
    expect([...held!.keys()]).toEqual(expect.arrayContaining([chunkKey(doc.id, 0)]));
  });

  it("places a batch of queries at once: the exact head and each looked-for document's best chunk at its exact rank", async () => {
    useExactLimits({ chunks: 10 });
    const model = embedder().model;
    const compact = (await compactVectors(agentId, model, { wait: true }))!;
    const docs = listDocuments(agentId).filter((d) => d.status === "ready");
    const queries = ["zz3tag refund", "alpha tail", words(6), `${words(2)} zz20tag`, "beta tail of the second twin"];
    const { vectors } = await embedForAgent(agentId, queries);
    const targets = queries.map((_, q) => [docs[(q * 7) % docs.length].id, docs.at(-1 - q)!.id]);
    for (const window of [1, 20]) {
      const got = await compactPlaces(compact, model, vectors, window, targets);
      let deepest = 0;
      for (const [q, vector] of vectors.entries()) {
        const want = (await exactRanks(agentId, model, vector, window, targets[q]))!;
        expect(got[q].head, `${queries[q]}, window ${window}`).toEqual(want.exact);
        for (const id of targets[q]) {
          const best = got[q].chunks.find((c) => c.document_id === id)!;
          expect(best.rank, `${queries[q]}, document ${id}`).toBe(want.ranks.get(chunkKey(id, best.chunk_index)));
          deepest = Math.max(deepest, best.rank!);
        }
        // A chunk of theirs within the head has its place there; the others' ranks are not known (null) or exact.
        for (const c of got[q].chunks) if (c.rank !== null) expect(c.rank).toBe(want.ranks.get(chunkKey(c.document_id, c.chunk_index)));
      }
      expect(deepest).toBeGreaterThan(window); // some best chunks lie past the head
    }
  });

  it("is held within EXACT_MEMORY_MB, at about a quarter of the float32 table, and not at all when it does not fit", async () => {
    const model = embedder().model;
    useExactLimits({});
    const full = (await exactVectors(agentId, model))!.bytes;
    useExactLimits({ chunks: 10 });
    // None held and none on disk: the load starts in the background and the caller is not kept waiting for it.
    const onDisk = path.join(process.env.DATA_DIR!, "compact");
    fs.rmSync(onDisk, { recursive: true, force: true });
    expect(await compactVectors(agentId, model)).toBeNull();
    await expect.poll(() => compactVectors(agentId, model), LOADED).not.toBeNull();
    const compact = (await compactVectors(agentId, model))!;
    expect(compact.table?.precision).toBe("i8");
    expect(compact.bytes).toBeLessThan(full / 2);
    expect(exactBytesHeld()).toBe(compact.bytes);
    // Written to disk: once dropped (a restart), the next search reads it from there and is served from it.
    await expect.poll(() => fs.existsSync(onDisk) && fs.readdirSync(onDisk).some((f) => f.endsWith(".table")), LOADED).toBe(true);
    useExactLimits({ chunks: 10 });
    const again = await compactVectors(agentId, model);
    expect(again?.table?.rows).toBe(compact.table!.rows);
    expect(again?.table?.documentOf).toEqual(compact.table!.documentOf);
    useExactLimits({ chunks: 10, memoryMb: 0.1 });
    expect(await compactVectors(agentId, model, { wait: true })).toBeNull();
    expect(exactBytesHeld()).toBe(0);
  });
});
