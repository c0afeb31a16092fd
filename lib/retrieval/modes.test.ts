import { beforeAll, describe, expect, it } from "vitest";
import * as agentApi from "@/app/api/agents/[id]/route";
import * as evals from "@/app/api/agents/[id]/evals/route";
import { createPair } from "../db/pairs";
import { embedder } from "../embeddings/configured";
import { ARTICLES, ingest, newAgent } from "../../test/helpers";
import { call } from "../../test/http";
import { listDocuments } from "../db/documents";
import { keywordRanking } from "./keyword";
import { listDepth, RRF_K, type RankedResult } from "./modes";
import { rankAllChunks, searchAgentDocuments } from "./retrieve";
import { inspectQuery } from "./inspect";

let agentId: number;
let otherId: number;
const QUERY = "error E-4411 card declined";

beforeAll(async () => {
  agentId = newAgent("modes").id;
  otherId = newAgent("modes other").id;
  for (const [name, text] of Object.entries(ARTICLES)) await ingest(agentId, `${name}.txt`, text);
  await ingest(
    agentId,
    "errors.txt",
    "Payment errors. E-4411 means the bank declined the card; ask for another card. E-5000 is a timeout.",
  );
  await ingest(agentId, "cards.txt", "Cards we accept: Visa, Mastercard and gift cards. A declined card shows a red banner.");
  await ingest(otherId, "errors.txt", "Payment errors. E-4411 means the bank declined the card.");
});

const setMode = (mode: unknown) =>
  call(agentApi.PATCH, { method: "PATCH", json: { retrieval_mode: mode }, params: { id: String(agentId) } });
const key = (r: { document_id: number; chunk_index: number }) => `${r.document_id}#${r.chunk_index}`;

describe("retrieval modes", () => {
  it("is vector by default, set through PATCH, and refused when unknown", async () => {
    expect((await call(agentApi.GET, { method: "GET", params: { id: String(agentId) } })).body.retrieval_mode).toBe("vector");
    const bad = await setMode("bm25");
    expect(bad.status).toBe(422);
    expect(bad.body.error.message).toMatch(/retrieval_mode must be one of: vector, keyword, hybrid/);
    const vector = await searchAgentDocuments(agentId, QUERY, 3);
    expect(Object.keys(vector[0]).sort()).toEqual(["chunk_index", "chunk_text", "document_id", "filename", "score"]); // the seed's shape
  });

  it("keyword mode ranks by bm25 and keeps score as the vector distance, with each result's place in both lists", async () => {
    expect((await setMode("keyword")).body.retrieval_mode).toBe("keyword");
    const results = await searchAgentDocuments(agentId, QUERY, 3);
    const matches = keywordRanking(agentId, embedder().model, QUERY, 3);
    expect(results.map(key)).toEqual(matches.map(key));
    expect(results[0].filename).toBe("errors.txt");
    const [full] = await rankAllChunks(agentId, [QUERY]);
    const place = new Map(full.map((r, i) => [key(r), { rank: i + 1, distance: r.score }]));
    results.forEach((r, i) => {
      expect(r).toMatchObject({ keyword_rank: i + 1, bm25: matches[i].bm25 });
      expect(r.score).toBeCloseTo(place.get(key(r))!.distance, 5);
      const rank = place.get(key(r))!.rank;
      expect((r as RankedResult).vector_rank).toBe(rank <= listDepth(3) ? rank : null);
    });
  });

  it("hybrid mode fuses the two rankings by reciprocal rank with k = 60", async () => {
    await setMode("hybrid");
    const topK = 4;
    const results = await searchAgentDocuments(agentId, QUERY, topK);
    // The same fusion computed here from the two lists as the index and the keyword table give them.
    const [full] = await rankAllChunks(agentId, [QUERY]);
    const vector = new Map(full.slice(0, listDepth(topK)).map((r, i) => [key(r), i + 1]));
    const keyword = new Map(keywordRanking(agentId, embedder().model, QUERY, listDepth(topK)).map((m, i) => [key(m), i + 1]));
    const share = (r?: number) => (r === undefined ? 0 : 1 / (RRF_K + r));
    const expected = [...new Set([...vector.keys(), ...keyword.keys()])]
      .sort(
        (a, b) =>
          share(vector.get(b)) + share(keyword.get(b)) - (share(vector.get(a)) + share(keyword.get(a))) ||
          (vector.get(a) ?? 1e9) - (vector.get(b) ?? 1e9),
      )
      .slice(0, topK);
    expect(results.map(key)).toEqual(expected);
    expect(results.map((r) => (r as RankedResult).fused_rank)).toEqual([1, 2, 3, 4]);
    const otherDocs = new Set((await searchAgentDocuments(otherId, QUERY, 5)).map((r) => r.document_id));
    expect(results.some((r) => otherDocs.has(r.document_id))).toBe(false);
  });

  it("the inspector ranks in another mode without changing the agent's, and places the expected document in each list", async () => {
    await setMode("vector");
    const errors = listDocuments(agentId).find((d) => d.filename === "errors.txt")!;
    const password = listDocuments(agentId).find((d) => d.filename === "password.txt")!;
    const inspected = await inspectQuery(agentId, QUERY, 3, errors.id, "keyword");
    expect(inspected.mode).toBe("keyword");
    await setMode("keyword");
    expect(inspected.results).toEqual(await searchAgentDocuments(agentId, QUERY, 3));
    await setMode("vector");
    expect(inspected.expected!.keyword).toMatchObject({ rank: 1, fused_rank: 1 });
    expect(inspected.expected!.keyword.bm25).toBeLessThan(0);
    // A document none of whose words the query has: no keyword rank, only its vector one.
    const none = await inspectQuery(agentId, QUERY, 3, password.id);
    expect(none.mode).toBe("vector");
    expect(none.expected!.keyword.rank).toBeNull();
    expect(none.expected!.best_rank).toBeGreaterThan(0);
  });

  it("the diagnosis's hybrid rank is where the hybrid results place the document, ties included", async () => {
    for (const query of [QUERY, "card declined E-4411"]) {
      await setMode("hybrid");
      const results = await searchAgentDocuments(agentId, query, 6);
      await setMode("vector");
      const firstAt = new Map<number, number>();
      results.forEach((r, i) => firstAt.has(r.document_id) || firstAt.set(r.document_id, i + 1));
      expect(firstAt.size).toBeGreaterThan(2);
      for (const [documentId, rank] of firstAt) {
        expect(
          (await inspectQuery(agentId, query, 6, documentId, "hybrid")).expected!.keyword.fused_rank,
          `${query}: document ${documentId}`,
        ).toBe(rank);
      }
    }
  });

  it("applies the no-match cut to the vector distance in every mode", async () => {
    await setMode("keyword");
    const all = await searchAgentDocuments(agentId, QUERY, 3);
    const sorted = all.map((r) => r.score).sort((a, b) => a - b);
    await call(agentApi.PATCH, { method: "PATCH", json: { max_distance: (sorted[0] + sorted[1]) / 2 }, params: { id: String(agentId) } });
    const cut = await searchAgentDocuments(agentId, QUERY, 3);
    expect(cut).toHaveLength(1);
    expect(cut[0].score).toBe(sorted[0]);
    await call(agentApi.PATCH, {
      method: "PATCH",
      json: { max_distance: null, retrieval_mode: "vector" },
      params: { id: String(agentId) },
    });
  });

  it("evaluates labeled pairs in each mode, ranking the expected document as that mode's list does", async () => {
    const pairs: [string, string][] = [
      [QUERY, "errors.txt"],
      ["which cards are accepted", "cards.txt"],
      ["forgot password link", "password.txt"],
      ["parcel tracking number", "sla.txt"], // no word in common with the SLA article: no keyword rank
    ];
    for (const [query, expected] of pairs) createPair(agentId, { query, expected_filename: expected });
    const run = async (mode?: string) =>
      (await call(evals.POST, { json: { k: 3, ...(mode ? { mode } : {}) }, params: { id: String(agentId) } })).body;
    const byDefault = await run();
    expect(byDefault.settings.retrieval_mode).toBe("vector");
    const keyword = await run("keyword");
    const hybrid = await run("hybrid");
    expect([keyword.settings.retrieval_mode, hybrid.settings.retrieval_mode]).toEqual(["keyword", "hybrid"]);
    const docs = new Map(listDocuments(agentId).map((d) => [d.filename, d.id]));
    for (const [i, [query, expected]] of pairs.entries()) {
      const at = keywordRanking(agentId, embedder().model, query, 1000).findIndex((m) => m.document_id === docs.get(expected));
      expect(keyword.pairs[i].rank, query).toBe(at < 0 ? null : at + 1);
      const inspected = await inspectQuery(agentId, query, 3, docs.get(expected), "hybrid");
      expect(hybrid.pairs[i].rank, query).toBe(inspected.expected!.keyword.fused_rank);
      expect(byDefault.pairs[i].rank, query).toBe(inspected.expected!.best_rank);
    }
    expect(keyword.pairs[3].rank).toBeNull();
    expect(keyword.recall_at_k["3"]).toBeLessThan(1);
  });
});
