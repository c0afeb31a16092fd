import { afterEach, describe, expect, it } from "vitest";
import { embedder } from "../embeddings/configured";
import { listDocuments } from "../db/documents";
import { chunkId } from "../vector-store/client";
import { ingest, newAgent } from "../../test/helpers";
import { embedForAgent } from "./retrieve";
import { compactVectors, exactVectors, narrowed, scan, useExactLimits, type Scan } from "./exact";
import { compactNearest } from "./compact";

// A filtered scan scores only the matching documents' rows (lib/retrieval/exact.ts): joined
// across short gaps, which are blanked again. Each matching row must have its unfiltered
// distance, every other row none, held in memory or streamed from SQLite.

afterEach(() => useExactLimits({}));

const byKey = (s: Scan, q = 0) => {
  const m = new Map<string, number>();
  for (let r = 0; r < s.rows; r++) m.set(chunkId(s.documentOf[r], s.chunkOf[r]), s.dist[q][r]);
  return m;
};

describe("a filtered exact scan", () => {
  it("gives the matching documents' rows their unfiltered distances and no other row any, held or streamed", async () => {
    const agent = newAgent("exact filter");
    // Documents of 1 to 4 chunks, so runs and gaps of many lengths lie between matching ones.
    for (let i = 0; i < 60; i++) {
      const words = Array.from({ length: 1 + (i % 4) }, (_, c) => `Article ${i} part ${c} about routers, modems and item${i}x${c}.`);
      await ingest(agent.id, `doc-${i}.md`, words.join("\n\n"), 60, 0);
    }
    const docs = listDocuments(agent.id).filter((d) => d.status === "ready");
    // Every third document, a block of ten in a row (a long span), and the last one.
    const chosen = docs.filter((_, i) => i % 3 === 0 || (i >= 20 && i < 30) || i === docs.length - 1);
    const only = new Map(chosen.map((d) => [d.id, d.chunk_count]));
    const model = embedder().model;
    const { vectors } = await embedForAgent(agent.id, ["how do I reset the router", "modem lights"]);

    for (const limits of [{}, { memoryMb: 0.001 }]) {
      useExactLimits(limits);
      const all = (await exactVectors(agent.id, model, { anySize: true }))!;
      expect(all.table === null).toBe("memoryMb" in limits);
      const full = await scan(all, model, vectors);
      const part = await scan(narrowed(all, only), model, vectors);
      for (const q of [0, 1]) {
        const want = byKey(full, q);
        const got = byKey(part, q);
        let scored = 0;
        for (const [key, d] of got) {
          const doc = Number(key.slice(3, key.indexOf("#")));
          if (only.has(doc)) {
            expect(d, key).toBe(want.get(key));
            scored++;
          } else expect(d, key).toBe(Number.POSITIVE_INFINITY);
        }
        expect(scored).toBe(chosen.reduce((n, d) => n + d.chunk_count, 0));
      }
    }

    // Past the exact limit, from the compact table: the nearest matching chunks, exactly.
    useExactLimits({ chunks: 1 });
    const compact = (await compactVectors(agent.id, model, { wait: true }))!;
    expect(compact.table?.precision).toBe("i8");
    // One query, as a search scores it (four at a time sum in another order: the seventh digit differs).
    const full = byKey(await scan((await exactVectors(agent.id, model, { anySize: true }))!, model, [vectors[0]]));
    const brute = [...full]
      .filter(([key]) => only.has(Number(key.slice(3, key.indexOf("#")))))
      .sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0], "en", { numeric: true }))
      .slice(0, 5);
    const nearest = await compactNearest(narrowed(compact, only), model, vectors[0], 5);
    expect(nearest.map((c) => [chunkId(c.document_id, c.chunk_index), c.score])).toEqual(brute);
  });
});
