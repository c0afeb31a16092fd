import { describe, expect, it } from "vitest";
import { agentChunkCount, deleteDocumentRow } from "../db/documents";
import { embedder } from "../embeddings/configured";
import { LocalEmbedder, wordFeatureId } from "../embeddings/local/embedder";
import type { CountTable } from "../embeddings/local/text-features";
import { rechunkDocument } from "../ingest/pipeline";
import { removeDocument } from "../ingest/remove";
import { ingest, newAgent } from "../../test/helpers";
import { documentChunks, ownChunkId } from "../db/chunks";
import { changeChunk } from "../ingest/curate";
import { rankAllChunks, searchAgentDocuments } from "./retrieve";
import { agentCorpusStats, forgetAgent, hasCorpusStats, warmCorpusStats } from "./corpus-stats";

/** The cached counts equal counts built from scratch, feature for feature. */
async function expectSameAsRebuilt(agentId: number) {
  const cached = (await agentCorpusStats(agentId, embedder()))!;
  const snapshot = { chunks: cached.chunks, df: cached.df as CountTable };
  const pairs = Array.from({ length: snapshot.df.size }, (_, k) => snapshot.df.keys[snapshot.df.slots[k]]).map((f) => [
    f,
    snapshot.df.get(f),
  ]);
  forgetAgent(agentId);
  const fresh = (await agentCorpusStats(agentId, embedder()))!;
  const freshTable = fresh.df as CountTable;
  expect(fresh.df).not.toBe(snapshot.df);
  expect(snapshot.chunks).toBe(fresh.chunks);
  const nonzero = (list: number[][]) => list.filter(([, n]) => n !== 0).sort((a, b) => a[0] - b[0]);
  const freshPairs = Array.from({ length: freshTable.size }, (_, k) => freshTable.keys[freshTable.slots[k]]).map((f) => [
    f,
    freshTable.get(f),
  ]);
  expect(nonzero(pairs)).toEqual(nonzero(freshPairs));
}

const ROUTER = {
  setup: "Router setup: plug the router into the modem, then open the router admin page to finish the router setup.",
  firmware: "Router firmware updates install overnight. The router restarts by itself when the router firmware is updated.",
  lights: "Router lights: a blinking orange router light means the router has no uplink; a green router light is fine.",
  warranty: "Warranty claims need the receipt and the serial number printed under the device.",
};

describe("query weighting by the agent's own chunks (real Chroma and SQLite)", () => {
  it("counts features over exactly the agent's ready chunks and follows adds, removals and re-indexing", async () => {
    const agent = newAgent("counts");
    const e = embedder();
    const router = wordFeatureId("router");
    const warranty = wordFeatureId("warranty");
    const docs = new Map<string, number>();
    for (const [name, text] of Object.entries(ROUTER)) docs.set(name, (await ingest(agent.id, `${name}.md`, text)).document_id!);

    let stats = (await agentCorpusStats(agent.id, e))!;
    expect(stats.chunks).toBe(4);
    expect(stats.df.get(router)).toBe(3);
    expect(stats.df.get(warranty)).toBe(1);

    const counted = stats.df;
    await removeDocument(agent.id, docs.get("firmware")!);
    stats = (await agentCorpusStats(agent.id, e))!;
    expect(stats.df).toBe(counted); // taken out in place, not rebuilt
    expect(stats.chunks).toBe(3);
    expect(stats.df.get(router)).toBe(2);
    await expectSameAsRebuilt(agent.id);

    // Re-chunked into 3 overlapping chunks, each of which says "warranty".
    const long = `${ROUTER.warranty} ${"Keep the warranty card. ".repeat(12)}`;
    await ingest(agent.id, "warranty-card.md", long, 120, 20);
    stats = (await agentCorpusStats(agent.id, e))!;
    expect(stats.chunks).toBe(agentChunkCount(agent.id));
    expect(stats.df.get(warranty)).toBe(1 + (stats.chunks - 3));

    await rechunkDocument(agent.id, docs.get("setup")!, { chunkSize: 60, chunkOverlap: 10 });
    stats = (await agentCorpusStats(agent.id, e))!;
    expect(stats.chunks).toBe(agentChunkCount(agent.id));
    expect(stats.df.get(router)).toBeGreaterThan(2);
    await expectSameAsRebuilt(agent.id);

    // A row that goes without removeDocument (e.g. another process) is noticed: rebuilt.
    deleteDocumentRow(agent.id, docs.get("lights")!);
    stats = (await agentCorpusStats(agent.id, e))!;
    expect(stats.chunks).toBe(agentChunkCount(agent.id));
    await expectSameAsRebuilt(agent.id);
  });

  it("takes a curated version's own chunks out when it is changed again or replaced: questions and edits counted as they were indexed", async () => {
    const agent = newAgent("counts curated");
    const e = embedder();
    const doc = await ingest(agent.id, "setup.md", ROUTER.setup);
    await ingest(agent.id, "warranty.md", ROUTER.warranty);
    const chunkId = documentChunks(doc.document_id!)[0];
    // Questions and an edit with words the article's text does not have.
    await changeChunk(
      agent.id,
      ownChunkId(chunkId.document_id, chunkId.chunk_index),
      { questions: ["How do I pair the zigbee hub?"] },
      null,
    );
    await changeChunk(
      agent.id,
      ownChunkId(chunkId.document_id, chunkId.chunk_index),
      { text: "Plug the mesh extender into the modem." },
      null,
    );
    const counted = (await agentCorpusStats(agent.id, e))!.df;
    expect(counted.get(wordFeatureId("zigbee"))).toBe(1);
    expect(counted.get(wordFeatureId("extender"))).toBe(1);
    await ingest(agent.id, "setup.md", ROUTER.lights); // replaced: the curated version's chunks go out of the counts
    const stats = (await agentCorpusStats(agent.id, e))!;
    expect(stats.df).toBe(counted); // in place, not rebuilt
    expect(stats.df.get(wordFeatureId("zigbee"))).toBe(0);
    expect(stats.df.get(wordFeatureId("extender"))).toBe(0);
    await expectSameAsRebuilt(agent.id);
  });

  it("ranks the chunk with the query's rare word first, where the word every chunk repeats would win unweighted", async () => {
    const agent = newAgent("rare words");
    for (const [name, text] of Object.entries(ROUTER)) await ingest(agent.id, `${name}.md`, text);
    const [top] = await searchAgentDocuments(agent.id, "router warranty", 1);
    expect(top.filename).toBe("warranty.md");

    // The same chunks and query without the weighting: a router article comes first.
    const e = embedder() as LocalEmbedder;
    const texts = Object.values(ROUTER);
    const [q, ...chunks] = await e.embed(["router warranty", ...texts]);
    const cos = (v: number[]) => v.reduce((s, x, i) => s + x * q[i], 0);
    const best = texts[chunks.map(cos).reduce((b, s, i, all) => (s > all[b] ? i : b), 0)];
    expect(best).not.toBe(ROUTER.warranty);
  });

  it("weights an agent's queries by that agent's chunks only", async () => {
    const agent = newAgent("mine");
    const other = newAgent("theirs");
    for (const [name, text] of Object.entries(ROUTER)) await ingest(agent.id, `${name}.md`, text);
    const before = await searchAgentDocuments(agent.id, "router warranty", 4);
    const rankingBefore = await rankAllChunks(agent.id, ["router warranty"]);

    // Another agent full of the word this agent has once: would lower its weight if counts were shared.
    for (let i = 0; i < 5; i++)
      await ingest(other.id, `w${i}.md`, `Warranty terms ${i}: the warranty covers parts; warranty repairs are free.`);
    expect(await searchAgentDocuments(agent.id, "router warranty", 4)).toEqual(before);
    expect(await rankAllChunks(agent.id, ["router warranty"])).toEqual(rankingBefore);
    const [theirs] = await searchAgentDocuments(other.id, "router warranty", 1);
    expect(theirs.filename).toMatch(/^w\d\.md$/);
  });

  it("builds the counts of recently changed agents at start, before their first search", async () => {
    const a = newAgent("warm a");
    const b = newAgent("warm b");
    await ingest(a.id, "setup.md", ROUTER.setup);
    await ingest(b.id, "lights.md", ROUTER.lights);
    forgetAgent(a.id);
    forgetAgent(b.id);
    expect(hasCorpusStats(a.id) || hasCorpusStats(b.id)).toBe(false);
    expect(await warmCorpusStats(embedder())).toBeGreaterThanOrEqual(2);
    expect(hasCorpusStats(a.id) && hasCorpusStats(b.id)).toBe(true);
    expect((await agentCorpusStats(b.id, embedder()))!.chunks).toBe(1);
  });
});

describe("query-weighting counts across a restart", () => {
  it("loads the saved counts instead of counting every chunk again, and adds only what changed since", async () => {
    const { saveCorpusStatsNow, clearCorpusStatsMemory } = await import("./corpus-stats");
    const agent = newAgent("counts on disk");
    for (const [name, text] of Object.entries(ROUTER)) await ingest(agent.id, `${name}.md`, text);
    const e = new LocalEmbedder();
    const before = (await agentCorpusStats(agent.id, e))!;
    const router = wordFeatureId("router");
    expect(before.df.get(router)).toBe(3);
    saveCorpusStatsNow();

    // A restart: nothing in memory. Loading counts no chunk.
    clearCorpusStatsMemory();
    let counted = 0;
    const countFeatures = e.countFeatures.bind(e);
    e.countFeatures = async (texts, into, n) => {
      counted += texts.length;
      return countFeatures(texts, into, n);
    };
    const loaded = (await agentCorpusStats(agent.id, e))!;
    expect(counted).toBe(0);
    expect(loaded.chunks).toBe(4);
    expect(loaded.df.get(router)).toBe(3);
    expect(loaded.df.get(wordFeatureId("warranty"))).toBe(1);

    // Saved, then a document added while the app was down: only that one is counted.
    saveCorpusStatsNow();
    clearCorpusStatsMemory();
    await ingest(agent.id, "reset.md", "Router reset: hold the router button for ten seconds.");
    clearCorpusStatsMemory();
    counted = 0;
    const grown = (await agentCorpusStats(agent.id, e))!;
    expect(counted).toBe(1);
    expect(grown.df.get(router)).toBe(4);
    await expectSameAsRebuilt(agent.id);
  });
});
