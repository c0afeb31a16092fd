import { describe, expect, it } from "vitest";
import { collectionFor } from "./chroma";
import { embedder } from "./embedder";
import { inspectQuery } from "./inspect";
import { embedForAgent } from "./search";
import { reindexDocument } from "./ingest";
import { getDocument, listDocuments } from "./documents";
import { ARTICLES, ingest, newAgent, vectorsOf } from "./testing/helpers";

describe("inspectQuery", () => {
  it("ranks every chunk of the expected document with no k limit, as a direct Chroma query does", async () => {
    const agent = newAgent("inspect");
    const other = newAgent("inspect other");
    for (const [name, text] of Object.entries(ARTICLES)) await ingest(agent.id, `${name}.txt`, `${text} ${text}`, 60, 10);
    await ingest(other.id, "other.txt", ARTICLES.refunds);
    const refunds = listDocuments(agent.id).find((d) => d.filename === "refunds.txt")!;

    const result = await inspectQuery(agent.id, "how do I reset my password", refunds.id);
    const total = listDocuments(agent.id).reduce((n, d) => n + d.chunk_count, 0);
    expect(result.total_chunks).toBe(total);

    // The same ranking, computed here straight from Chroma.
    // The query vector is the product's (weighted by this agent's chunks); the ranking is Chroma's own.
    const [vector] = (await embedForAgent(agent.id, ["how do I reset my password"])).vectors;
    const direct = await (await collectionFor(embedder())).query({
      queryEmbeddings: [vector],
      nResults: total,
      where: { agent_id: agent.id },
    });
    const ids = direct.ids[0];
    expect(result.distances).toEqual(direct.distances[0].slice(0, 50));
    const expectedRanks = ids.flatMap((id, i) => (id.startsWith(`doc${refunds.id}#`) ? [i + 1] : []));
    expect(result.expected!.chunks.map((c) => c.rank)).toEqual(expectedRanks);
    expect(result.expected!.best_rank).toBe(expectedRanks[0]);
    expect(result.expected!.indexed).toBe(true);
    expect(result.expected!.chunks).toHaveLength(refunds.chunk_count);

    // How much each query word counts: counted here from the chunk texts Chroma holds.
    const stored = await (await collectionFor(embedder())).get({ where: { agent_id: agent.id }, include: ["documents"] });
    const having = (re: RegExp) => stored.documents.filter((t) => re.test(t ?? "")).length;
    const idf = (df: number) => Math.log(1 + (total - df + 0.5) / (df + 0.5));
    expect(result.query_words!.map((w) => w.word)).toEqual(["reset", "password"]); // stopwords dropped
    const [reset, password] = result.query_words!;
    expect(reset.chunks).toBe(having(/\breset/i));
    expect(password.chunks).toBe(having(/\bpasswords?\b/i));
    expect(password.chunks).toBeGreaterThan(0);
    expect(password.weight).toBeCloseTo(idf(password.chunks), 10);
    expect(reset.weight).toBeCloseTo(idf(reset.chunks), 10);
  });

  it("reports an expected document with no chunks as not indexed, and refuses an agent without the tool", async () => {
    const agent = newAgent("inspect missing");
    await ingest(agent.id, "sla.txt", ARTICLES.sla);
    const res = await inspectQuery(agent.id, "sla", 999_999);
    expect(res.expected).toMatchObject({ indexed: false, best_rank: null, chunks: [] });
    const noTool = newAgent("inspect no tool", []);
    await expect(inspectQuery(noTool.id, "sla")).rejects.toThrow(/document_search/);
  });
});

describe("reindexDocument", () => {
  it("re-chunks the stored text with new settings and replaces the old version only when done", async () => {
    const agent = newAgent("reindex");
    const first = await ingest(agent.id, "long.txt", "x".repeat(1000), 800, 100);
    expect(first.chunk_count).toBe(2);
    const again = await reindexDocument(agent.id, first.document_id!, { chunkSize: 300, chunkOverlap: 50 });
    expect(again).toMatchObject({ outcome: "replaced", status: "ready", chunk_count: 4 });
    expect(listDocuments(agent.id).map((d) => d.id)).toEqual([again.document_id]);
    expect(getDocument(agent.id, again.document_id!)).toMatchObject({ chunk_size: 300, chunk_overlap: 50, chunk_count: 4 });
    expect(await vectorsOf(agent.id, first.document_id!)).toEqual([]);
    expect(await vectorsOf(agent.id, again.document_id!)).toHaveLength(4);
  });
});
