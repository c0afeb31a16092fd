import { afterEach, describe, expect, it } from "vitest";
import { collectionFor } from "../vector-store/client";
import { embedder } from "../embeddings/configured";
import { rechunkDocument } from "../ingest/pipeline";
import { getDocument, listDocuments } from "../db/documents";
import { documentChunks } from "../db/chunks";
import { ARTICLES, ingest, newAgent, vectorsOf } from "../../test/helpers";
import { useExactLimits } from "./exact";
import { bestRanks, CANDIDATE_DEPTH, documentSearchTool, embedForAgent, locate, rankAllChunks } from "./retrieve";
import { inspectQuery } from "./inspect";
import { useKeywordPlaceCap } from "./modes";

describe("inspectQuery", () => {
  it("places the expected document's best chunk exactly, with no k limit, as a full direct Chroma ranking does", async () => {
    const agent = newAgent("inspect");
    const other = newAgent("inspect other");
    // Fixed windows: repeated text cut at boundaries gives identical chunks, whose tied distances Chroma may order either way.
    for (const [name, text] of Object.entries(ARTICLES)) await ingest(agent.id, `${name}.txt`, `${text} ${text}`, 60, 10, "fixed");
    await ingest(other.id, "other.txt", ARTICLES.refunds);
    const refunds = listDocuments(agent.id).find((d) => d.filename === "refunds.txt")!;

    const result = await inspectQuery(agent.id, "how do I reset my password", 5, refunds.id);
    const total = listDocuments(agent.id).reduce((n, d) => n + d.chunk_count, 0);
    expect(result.total_chunks).toBe(total);

    // The same ranking, computed here straight from Chroma.
    // The query vector is the product's (weighted by this agent's chunks); the ranking is Chroma's own.
    const [vector] = (await embedForAgent(agent.id, ["how do I reset my password"])).vectors;
    const direct = await (
      await collectionFor(embedder())
    ).query({
      queryEmbeddings: [vector],
      nResults: total,
      where: { agent_id: agent.id },
    });
    const ids = direct.ids[0];
    // Ranked exactly here; Chroma sums in float32, so the two agree to about 1e-7.
    expect(result.distances).toHaveLength(direct.distances[0].slice(0, 50).length);
    result.distances.forEach((d, i) => expect(d).toBeCloseTo(direct.distances[0][i]!, 6));
    const expectedRanks = ids.flatMap((id, i) => (id.startsWith(`doc${refunds.id}#`) ? [i + 1] : []));
    const chunks = result.expected!.chunks;
    expect(result.expected!.best_rank).toBe(expectedRanks[0]);
    expect(result.expected!.best_rank).toBeGreaterThan(5); // a miss at this k: found below the first read
    expect(result.expected!.indexed).toBe(true);
    expect(chunks).toHaveLength(refunds.chunk_count);
    // Every chunk has its distance; those within the ranked depth have their exact rank, the others none.
    const directDistance = new Map(ids.map((id, i) => [id, direct.distances[0][i]]));
    for (const c of chunks) expect(c.distance).toBeCloseTo(directDistance.get(`doc${refunds.id}#${c.chunk_index}`)!, 6);
    expect(chunks.map((c) => c.distance)).toEqual([...chunks.map((c) => c.distance)].sort((a, b) => a - b));
    const ranked = chunks.filter((c) => c.rank !== null);
    expect(ranked.map((c) => c.rank)).toEqual(expectedRanks.slice(0, ranked.length));
    expect(result.expected!.ranked_depth).toBeGreaterThanOrEqual(expectedRanks[0]);
    expect(result.expected!.unreachable_chunks).toBe(0);

    // How much each query word counts: counted here from the agent's stored chunk texts.
    const stored = listDocuments(agent.id).flatMap((d) => documentChunks(d.id).map((c) => c.text));
    const having = (re: RegExp) => stored.filter((t) => re.test(t)).length;
    const idf = (df: number) => Math.log(1 + (total - df + 0.5) / (df + 0.5));
    expect(result.query_words!.map((w) => w.word)).toEqual(["reset", "password"]); // stopwords dropped
    const [reset, password] = result.query_words!;
    expect(reset.chunks).toBe(having(/\breset/i));
    expect(password.chunks).toBe(having(/\bpasswords?\b/i));
    expect(password.chunks).toBeGreaterThan(0);
    expect(password.weight).toBeCloseTo(idf(password.chunks), 10);
    expect(reset.weight).toBeCloseTo(idf(reset.chunks), 10);
  });

  it("reports an expected document with no chunks as not indexed, and inspects an agent without the tool", async () => {
    const agent = newAgent("inspect missing");
    await ingest(agent.id, "sla.txt", ARTICLES.sla);
    const res = await inspectQuery(agent.id, "sla", 3, 999_999);
    expect(res.expected).toMatchObject({ indexed: false, best_rank: null, chunks: [] });
    // An admin tests an agent before switching its tool on: the inspector works, and says the agent is refused.
    const noTool = newAgent("inspect no tool", []);
    await ingest(noTool.id, "sla.txt", ARTICLES.sla);
    const off = await inspectQuery(noTool.id, "first response time", 3);
    expect(off.total_chunks).toBe(1);
    expect(off.results.map((r) => r.filename)).toEqual(["sla.txt"]);
    await expect(documentSearchTool(noTool.id, "first response time", 3)).rejects.toMatchObject({ status: 403 });
  });

  it("lists exactly what the agent's search returns for the same query and k: the head of the ranking it diagnoses", async () => {
    const agent = newAgent("inspect equals search");
    // Fixed windows, so that no two chunks are identical: Chroma orders tied distances either way.
    for (const [name, text] of Object.entries(ARTICLES)) await ingest(agent.id, `${name}.txt`, `${text} ${text} ${text}`, 50, 10, "fixed");
    for (const [query, k] of [
      ["refund to my card", 3],
      ["password reset email", 7],
      ["billing pdf invoices", 1],
      ["support", 12],
    ] as const) {
      const inspected = await inspectQuery(agent.id, query, k);
      const searched = await documentSearchTool(agent.id, query, k);
      expect(inspected.results).toEqual(searched);
      expect(inspected.results.map((r) => r.score)).toEqual(inspected.distances.slice(0, k));
    }
  });

  it("leaves the keyword place unranked in vector mode when the query's words match more chunks than the cap, and says why", async () => {
    const agent = newAgent("inspect keyword cap");
    for (const [name, text] of Object.entries(ARTICLES)) await ingest(agent.id, `${name}.txt`, `${text} ${text} ${text}`, 50, 10, "fixed");
    const doc = listDocuments(agent.id).find((d) => d.filename === "refunds.txt")!;
    const ranked = await inspectQuery(agent.id, "refund to my card", 3, doc.id, "vector");
    expect(ranked.expected?.keyword.rank).not.toBeNull();
    expect(ranked.expected?.keyword.not_ranked).toBeUndefined();
    useKeywordPlaceCap(2);
    try {
      const capped = await inspectQuery(agent.id, "refund to my card", 3, doc.id, "vector");
      expect(capped.expected?.keyword).toEqual({
        rank: null,
        bm25: null,
        fused_rank: null,
        not_ranked:
          "the query's words match more than 2 chunks, so in vector mode they are not ranked (the keyword and hybrid modes rank them)",
      });
      expect(capped.expected?.best_rank).toBe(ranked.expected?.best_rank); // the vector side is unchanged
      // In hybrid mode the keyword matches are ranked whatever their number: the results depend on them.
      const hybrid = await inspectQuery(agent.id, "refund to my card", 3, doc.id, "hybrid");
      expect(hybrid.expected?.keyword.rank).toBe(ranked.expected?.keyword.rank);
      // A query matching fewer chunks than the cap is ranked in vector mode too.
      useKeywordPlaceCap(1_000);
      expect((await inspectQuery(agent.id, "refund to my card", 3, doc.id, "vector")).expected?.keyword).toEqual(ranked.expected?.keyword);
    } finally {
      useKeywordPlaceCap(undefined);
    }
  });
});

describe("rechunkDocument", () => {
  it("re-chunks the stored text with new settings and replaces the old version only when done", async () => {
    const agent = newAgent("reindex");
    const first = await ingest(agent.id, "long.txt", "x".repeat(1000), 800, 100);
    expect(first.chunk_count).toBe(2);
    const again = await rechunkDocument(agent.id, first.document_id!, { chunkSize: 300, chunkOverlap: 50 });
    expect(again).toMatchObject({ outcome: "replaced", status: "ready", chunk_count: 4 });
    expect(listDocuments(agent.id).map((d) => d.id)).toEqual([again.document_id]);
    expect(getDocument(agent.id, again.document_id!)).toMatchObject({ chunk_size: 300, chunk_overlap: 50, chunk_count: 4 });
    expect(await vectorsOf(agent.id, first.document_id!)).toEqual([]);
    expect(await vectorsOf(agent.id, again.document_id!)).toHaveLength(4);
  });
});

describe("locate", () => {
  it("gives each looked-for document the rank a full ranking gives it, reading only as deep as needed", async () => {
    const agent = newAgent("locate depth");
    for (const [name, text] of Object.entries(ARTICLES)) await ingest(agent.id, `${name}.txt`, `${text} ${text} ${text}`, 40, 5, "fixed");
    const docs = listDocuments(agent.id);
    const queries = ["refund to my card", "password reset email", "billing pdf invoices", "parcel tracking number"];
    const full = await rankAllChunks(agent.id, queries);
    const { model, vectors } = await embedForAgent(agent.id, queries);
    // Every document for every query, from a first read of only 2 results.
    const located = await locate(
      agent.id,
      await collectionFor(model),
      vectors,
      queries.map(() => docs.map((d) => d.id)),
      2,
    );
    let deep = 0;
    located.forEach((loc, q) => {
      const best = bestRanks(full[q]);
      for (const d of docs) {
        const mine = loc.chunks.filter((c) => c.document_id === d.id);
        expect(mine).toHaveLength(d.chunk_count);
        expect(mine[0].rank).toBe(best.get(d.id)!.rank);
        expect(mine[0].distance).toBeCloseTo(best.get(d.id)!.distance, 6);
        if (best.get(d.id)!.rank > 2) deep++;
      }
      expect(loc.head.map((h) => `${h.document_id}#${h.chunk_index}`)).toEqual(
        full[q].slice(0, loc.head.length).map((h) => `${h.document_id}#${h.chunk_index}`),
      );
    });
    expect(deep).toBeGreaterThan(0); // some were found only by reading deeper than the first 2
  });

  describe("served by Chroma", () => {
    afterEach(() => useExactLimits({}));

    it("keeps all its first read returned: a document within CANDIDATE_DEPTH takes one query, however small the window", async () => {
      const agent = newAgent("locate chroma");
      for (const [name, text] of Object.entries(ARTICLES)) await ingest(agent.id, `${name}.txt`, `${text} ${text} ${text}`, 40, 5, "fixed");
      useExactLimits({ chunks: 0 }); // ranked by Chroma, not exactly
      const total = listDocuments(agent.id).reduce((n, d) => n + d.chunk_count, 0);
      expect(total).toBeLessThan(CANDIDATE_DEPTH);
      const queries = ["refund to my card", "parcel tracking number"];
      const full = await rankAllChunks(agent.id, queries);
      const { model, vectors } = await embedForAgent(agent.id, queries);
      // Each query looks for its own nearest document: found within a window of 2.
      const targets = full.map((ranking) => [ranking[0].document_id]);
      const located = await locate(agent.id, await collectionFor(model), vectors, targets, 2);
      located.forEach((loc, q) => {
        // The one read returned every chunk (fewer than CANDIDATE_DEPTH): all kept, and its ranks are exact.
        expect(loc.head).toHaveLength(total);
        expect(loc.depth).toBe(total);
        expect(loc.chunks[0].rank).toBe(1);
        expect(loc.head.map((h) => `${h.document_id}#${h.chunk_index}`)).toEqual(full[q].map((h) => `${h.document_id}#${h.chunk_index}`));
      });
    });
  });
});
