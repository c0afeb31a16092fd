import { afterEach, beforeAll, describe, expect, it } from "vitest";
import * as search from "@/pages/api/agents/[id]/documents/search";
import { call } from "@/test/http";
import { enc, newAgent } from "@/test/helpers";
import { ingestFile } from "@/lib/ingest/pipeline";
import { recentToolCalls } from "@/lib/db/tool-calls";
import { rankAllChunks, type RankedChunk } from "@/lib/retrieval/retrieve";
import { keywordRanking } from "@/lib/retrieval/keyword";
import { listDepth, RRF_K } from "@/lib/retrieval/modes";
import { compactVectors, useExactLimits } from "@/lib/retrieval/exact";
import { embedder } from "@/lib/embeddings/configured";
import { updateAgent } from "@/lib/db/agents";
import { matchingDocuments } from "@/lib/db/metadata";
import type { Metadata } from "@/lib/core/metadata";
import { evaluate } from "@/lib/evaluation/run";
import { runResults } from "@/lib/db/eval-runs";
import { replayQuestions } from "@/lib/questions/replay";
import * as pairs from "./agents/[id]/pairs/route";
import * as ask from "./agents/[id]/ask/route";
import * as inspect from "./agents/[id]/inspect/route";

// Filters against real Chroma and real SQLite: each operator's meaning, each failure the issue
// names, and filtered rankings compared with a brute-force ranking of the matching chunks.

const PRODUCTS = ["router", "modem", "switch"];
const TOPICS = [
  "resetting the device to factory settings with the recessed button",
  "updating the firmware from the admin page and checking the version",
  "setting up the wireless network name and password",
  "forwarding ports for games and remote desktop access",
  "reading the status lights on the front panel",
  "connecting a second unit as a mesh extender",
  "limiting bandwidth for guests and children",
  "exporting logs when support asks for diagnostics",
];

/** Twenty-four documents: every product, topic pair in turn, with metadata of every kind. */
const DOCS = Array.from({ length: 24 }, (_, i) => {
  const product = PRODUCTS[i % 3];
  const topic = TOPICS[i % TOPICS.length];
  const metadata: Metadata = {
    product,
    locale: i % 2 === 0 ? "en" : "de",
    firmware: 1 + (i % 4),
    beta: i % 5 === 0,
    released: `2026-0${1 + (i % 9)}-15`,
  };
  if (i % 3 !== 2) metadata.tags = i % 2 === 0 ? ["setup", "basics"] : ["advanced"];
  const text =
    `${product} guide ${i}. This article is about ${topic} on the ${product}. ` +
    `Follow the steps for ${topic}; if the ${product} does not respond, restart it and try again. ` +
    `Article ${i} applies to firmware ${metadata.firmware}.`;
  return { filename: `${product}-${i}.md`, text, metadata };
});

let agentId: number;
const idOf = new Map<string, number>();
const metaOf = new Map<number, Metadata>();

beforeAll(async () => {
  agentId = newAgent("filters").id;
  for (const d of DOCS) {
    const r = await ingestFile(
      agentId,
      { filename: d.filename, bytes: enc(d.text), metadata: d.metadata },
      { chunkSize: 120, chunkOverlap: 20 },
    );
    expect(r.status).toBe("ready");
    idOf.set(d.filename, r.document_id!);
    metaOf.set(r.document_id!, d.metadata);
  }
}, 120_000);

afterEach(() => useExactLimits({}));

const post = (json: unknown) => call(search.POST, { json, params: { id: String(agentId) } });
const docsOf = (results: { document_id: number }[]) => [...new Set(results.map((r) => r.document_id))].sort((a, b) => a - b);
const expectedDocs = (ok: (m: Metadata) => boolean) =>
  [...metaOf]
    .filter(([, m]) => ok(m))
    .map(([id]) => id)
    .sort((a, b) => a - b);

describe("each operator, against the documents' metadata", () => {
  // top_k 100 reaches every matching chunk (the agent has fewer than 100 in all), so the
  // documents of the results are exactly the documents the filter matches.
  const cases: [string, unknown, (m: Metadata) => boolean][] = [
    ["a bare value", { product: "router" }, (m) => m.product === "router"],
    ["$eq", { locale: { $eq: "de" } }, (m) => m.locale === "de"],
    ["$ne", { product: { $ne: "modem" } }, (m) => m.product !== "modem"],
    ["$gt", { firmware: { $gt: 2 } }, (m) => (m.firmware as number) > 2],
    ["$gte", { firmware: { $gte: 2 } }, (m) => (m.firmware as number) >= 2],
    ["$lt", { firmware: { $lt: 2 } }, (m) => (m.firmware as number) < 2],
    ["$lte", { firmware: { $lte: 3 } }, (m) => (m.firmware as number) <= 3],
    ["$gte on a date", { released: { $gte: "2026-06-01" } }, (m) => (m.released as string) >= "2026-06-01"],
    ["$in", { product: { $in: ["router", "switch"] } }, (m) => m.product === "router" || m.product === "switch"],
    ["$nin", { firmware: { $nin: [1, 4] } }, (m) => m.firmware !== 1 && m.firmware !== 4],
    ["$contains on a list", { tags: { $contains: "advanced" } }, (m) => Array.isArray(m.tags) && m.tags.includes("advanced")],
    [
      "$ne on a list key matches documents without it",
      { tags: { $ne: "setup" } },
      (m) => !(Array.isArray(m.tags) && m.tags.includes("setup")),
    ],
    ["a boolean", { beta: true }, (m) => m.beta === true],
    ["$and", { $and: [{ product: "router" }, { locale: "en" }] }, (m) => m.product === "router" && m.locale === "en"],
    ["$or", { $or: [{ firmware: 4 }, { beta: true }] }, (m) => m.firmware === 4 || m.beta === true],
    [
      "two keys at once",
      { product: "modem", firmware: { $gte: 2, $lte: 3 } },
      (m) => m.product === "modem" && [2, 3].includes(m.firmware as number),
    ],
    ["a built-in field", { filename: { $in: ["router-0.md", "switch-2.md"] } }, () => false],
  ];
  for (const [name, filter, ok] of cases) {
    it(name, async () => {
      const res = await post({ query: "how do I restart the device", top_k: 100, filter });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const want =
        name === "a built-in field" ? [idOf.get("router-0.md")!, idOf.get("switch-2.md")!].sort((a, b) => a - b) : expectedDocs(ok);
      expect(want.length).toBeGreaterThan(0);
      expect(want.length).toBeLessThan(DOCS.length);
      expect(docsOf(res.body.results)).toEqual(want);
      expect(res.body.filter_matched_documents).toBe(want.length);
    });
  }
});

describe("filtered rankings are the nearest matching chunks", () => {
  const filter = { $and: [{ product: { $in: ["router", "modem"] } }, { firmware: { $lte: 2 } }] };
  const matches = (m: Metadata) => (m.product === "router" || m.product === "modem") && (m.firmware as number) <= 2;
  const query = "update the firmware version from the admin page";
  const key = (r: { document_id: number; chunk_index: number }) => `${r.document_id}#${r.chunk_index}`;

  /** The whole ranking of the agent, unfiltered, with the matching documents' chunks kept: the brute force. */
  async function bruteForce(): Promise<RankedChunk[]> {
    const [all] = await rankAllChunks(agentId, [query]);
    const ok = new Set(expectedDocs(matches));
    return all.filter((c) => ok.has(c.document_id));
  }

  const shape = (results: { document_id: number; chunk_index: number; score: number }[]) =>
    results.map((r) => ({ document_id: r.document_id, chunk_index: r.chunk_index, score: r.score }));

  it("vector mode: the same chunks as the brute force, with the same distances, exact or served by the index", async () => {
    const brute = (await bruteForce()).slice(0, 5);
    expect(brute).toHaveLength(5);
    const exact = await post({ query, top_k: 5, filter });
    expect(shape(exact.body.results)).toEqual(shape(brute));
    // An agent past the exact limit is served from Chroma's index; a filtered read of it is still
    // exact: from the matching documents' copies, then from the compact table once one is held.
    useExactLimits({ chunks: 1 });
    const indexed = await post({ query, top_k: 5, filter });
    expect(shape(indexed.body.results)).toEqual(shape(brute));
    await compactVectors(agentId, embedder().model, { wait: true });
    const compacted = await post({ query, top_k: 5, filter });
    expect(shape(compacted.body.results)).toEqual(shape(brute));
  });

  it("keyword mode: the matching chunks in bm25 order, each scored as unfiltered", async () => {
    updateAgent(agentId, { retrieval_mode: "keyword" });
    try {
      const model = embedder().model;
      const ok = new Set(expectedDocs(matches));
      const brute = keywordRanking(agentId, model, query, 1_000)
        .filter((m) => ok.has(m.document_id))
        .slice(0, 5);
      expect(brute).toHaveLength(5);
      const res = await post({ query, top_k: 5, filter });
      expect(res.body.results.map(key)).toEqual(brute.map(key));
    } finally {
      updateAgent(agentId, { retrieval_mode: "vector" });
    }
  });

  it("hybrid mode: reciprocal rank fusion of the two filtered lists, exact or served by the index", async () => {
    updateAgent(agentId, { retrieval_mode: "hybrid" });
    try {
      const topK = 4;
      const depth = listDepth(topK);
      const ok = new Set(expectedDocs(matches));
      const vector = (await bruteForce()).slice(0, depth);
      const keyword = keywordRanking(agentId, embedder().model, query, 1_000)
        .filter((m) => ok.has(m.document_id))
        .slice(0, depth);
      const vr = new Map(vector.map((v, i) => [key(v), i + 1]));
      const kr = new Map(keyword.map((k, i) => [key(k), i + 1]));
      const share = (r?: number) => (r === undefined ? 0 : 1 / (RRF_K + r));
      const worst = Number.MAX_SAFE_INTEGER;
      const fused = [...new Set([...vr.keys(), ...kr.keys()])]
        .sort(
          (a, b) =>
            share(vr.get(b)) + share(kr.get(b)) - (share(vr.get(a)) + share(kr.get(a))) ||
            (vr.get(a) ?? worst) - (vr.get(b) ?? worst) ||
            (kr.get(a) ?? worst) - (kr.get(b) ?? worst),
        )
        .slice(0, topK);
      const exact = await post({ query, top_k: topK, filter });
      expect(exact.body.results.map(key)).toEqual(fused);
      useExactLimits({ chunks: 1 });
      const indexed = await post({ query, top_k: topK, filter });
      expect(indexed.body.results.map(key)).toEqual(fused);
    } finally {
      updateAgent(agentId, { retrieval_mode: "vector" });
    }
  });

  it("without a filter the answer is unchanged: no filter field, the unfiltered ranking", async () => {
    const res = await post({ query, top_k: 5 });
    expect(Object.keys(res.body).sort()).toEqual(["query", "results"]);
    const [all] = await rankAllChunks(agentId, [query]);
    expect(shape(res.body.results)).toEqual(shape(all.slice(0, 5)));
  });
});

describe("no silent failures", () => {
  it("a key no document has is a 422 naming it and the keys that exist, logged as a failed call", async () => {
    const res = await post({ query: "restart", filter: { prodcut: "router" } });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("unknown_filter_key");
    expect(res.body.error.message).toContain('"prodcut"');
    for (const k of ["beta", "firmware", "locale", "product", "released", "tags"]) expect(res.body.error.message).toContain(k);
    const [logged] = recentToolCalls(agentId, 1);
    expect(logged).toMatchObject({ tool: "document_search", ok: 0 });
    expect(JSON.parse(logged.input).filter).toEqual({ prodcut: "router" });
  });

  it("a filter that matches no document answers no results and says it matched none", async () => {
    const res = await post({ query: "restart", filter: { product: "toaster" } });
    expect(res.status).toBe(200);
    expect(res.body.results).toEqual([]);
    expect(res.body.filter_matched_documents).toBe(0);
  });

  it("a malformed operator or value is a 422 naming it, and nothing is logged as searched", async () => {
    const before = recentToolCalls(agentId, 1)[0]?.id;
    for (const [filter, named] of [
      [{ product: { $like: "rout%" } }, "$like"],
      [{ $not: { product: "router" } }, "$not"],
      [{ firmware: { $gt: "three" } }, "$gt"],
      [{ product: { $in: [] } }, "$in"],
      [{ product: { $in: "router" } }, "$in"],
      [{ $and: { product: "router" } }, "$and"],
      [{ product: { $eq: { nested: 1 } } }, "$eq"],
      [{ product: ["router", "modem"] }, "$in"],
      ["router", "filter"],
      [{ "x\"') OR 1=1 --": "router" }, "is not a metadata key"],
      [{ "": "router" }, "is not a metadata key"],
    ] as [unknown, string][]) {
      const res = await post({ query: "restart", filter });
      expect(res.status, JSON.stringify(filter)).toBe(422);
      expect(res.body.error.code).toBe("invalid_filter");
      expect(res.body.error.message).toContain(named);
    }
    expect(recentToolCalls(agentId, 1)[0]?.id).toBe(before);
  });

  it("keys and values reach SQL as parameters only: quotes match nothing and break nothing", async () => {
    const quoted = await post({ query: "restart", filter: { product: { $in: ["it's", 'say "router"'] } } });
    expect(quoted.status).toBe(200);
    expect(quoted.body).toMatchObject({ results: [], filter_matched_documents: 0 });
    // Past the parser's check (a filter kept from before it, say): the key is still only a bound JSON path.
    const node = { key: "product\"') OR 1=1 --", op: "$eq" as const, value: "router" };
    expect(matchingDocuments(agentId, { where: {}, node }).size).toBe(0);
    const negated = { key: node.key, op: "$ne" as const, value: "router" };
    expect(matchingDocuments(agentId, { where: {}, node: negated }).size).toBe(DOCS.length);
  });

  it("a logged call keeps its filter", async () => {
    const filter = { product: "switch", locale: "de" };
    expect((await post({ query: "status lights", top_k: 2, filter })).status).toBe(200);
    const [logged] = recentToolCalls(agentId, 1);
    expect(logged).toMatchObject({ ok: 1 });
    expect(JSON.parse(logged.input)).toEqual({ query: "status lights", top_k: 2, filter });
  });
});

describe("ask and the inspector take the filter", () => {
  it("ask retrieves among the matching documents only", async () => {
    const res = await call(ask.POST, {
      json: { question: "how do I forward ports", top_k: 5, filter: { product: "modem" } },
      params: { id: String(agentId) },
    });
    expect(res.status).toBe(200);
    expect(res.body.retrieved.length).toBeGreaterThan(0);
    for (const r of res.body.retrieved) expect(metaOf.get(r.document_id)!.product).toBe("modem");
    expect(res.body.filter_matched_documents).toBe(expectedDocs((m) => m.product === "modem").length);
  });

  it("the inspector ranks under the filter and says when the expected document is filtered out", async () => {
    const query = "reading the status lights on the front panel";
    const filter = { locale: "en" };
    const searched = await post({ query, top_k: 3, filter });
    const inspected = await call(inspect.POST, { json: { query, top_k: 3, filter }, params: { id: String(agentId) } });
    expect(inspected.status).toBe(200);
    expect(inspected.body.filter).toEqual(filter);
    expect(inspected.body.filter_matched_documents).toBe(expectedDocs((m) => m.locale === "en").length);
    expect(inspected.body.results.map((r: RankedChunk) => r.score)).toEqual(searched.body.results.map((r: RankedChunk) => r.score));

    const german = expectedDocs((m) => m.locale === "de")[0];
    const out = await call(inspect.POST, {
      json: { query, top_k: 3, filter, expected_document_id: german },
      params: { id: String(agentId) },
    });
    expect(out.body.expected).toMatchObject({ document_id: german, indexed: false, filtered_out: true, best_rank: null });
    const english = expectedDocs((m) => m.locale === "en")[0];
    const inside = await call(inspect.POST, {
      json: { query, top_k: 3, filter, expected_document_id: english },
      params: { id: String(agentId) },
    });
    expect(inside.body.expected).toMatchObject({ indexed: true, filtered_out: false });
    expect(inside.body.expected.best_rank).toBeGreaterThan(0);
  });
});

describe("labeled pairs carry their filter, and runs and replays rank as the call was made", () => {
  const query = "connecting a second unit as a mesh extender";

  /** The 1-based place of the document's best chunk among the matching chunks of the unfiltered ranking. */
  async function bruteRank(documentId: number, ok: (m: Metadata) => boolean): Promise<number | null> {
    const [all] = await rankAllChunks(agentId, [query]);
    const at = all.filter((c) => ok(metaOf.get(c.document_id)!)).findIndex((c) => c.document_id === documentId);
    return at < 0 ? null : at + 1;
  }

  it("an evaluation run ranks each pair among the documents its filter matches", async () => {
    const switches = expectedDocs((m) => m.product === "switch");
    const target = switches[switches.length - 1];
    const filename = DOCS.find((d) => idOf.get(d.filename) === target)!.filename;
    const imported = await call(pairs.POST, {
      json: [
        { query, expected: filename },
        { query: `${query}?`, expected: filename, filter: { product: "switch" } },
        { query: `${query} please`, expected: filename, filter: { product: "router" } },
        { query: "bad filter", expected: filename, filter: { product: { $like: "s%" } } },
        { query: "unknown key", expected: filename, filter: { colour: "red" } },
      ],
      params: { id: String(agentId) },
    });
    expect(imported.status).toBe(201);
    expect(imported.body.accepted).toBe(3);
    expect(imported.body.rejected.map((r: { reason: string }) => r.reason)).toEqual(["invalid filter", "invalid filter"]);
    const listed = (await call(pairs.GET, { method: "GET", params: { id: String(agentId) } })).body.pairs;
    expect(listed.map((p: { filter: unknown }) => p.filter)).toEqual([null, { product: "switch" }, { product: "router" }]);

    const run = await evaluate(agentId, 3);
    const results = runResults(run.id);
    const rankOf = (q: string) => results.find((r) => r.query === q)!.rank;
    const [plain, inSwitches, inRouters] = listed.map((p: { query: string }) => rankOf(p.query));
    // Each as the brute force ranks it: unfiltered, among switch articles, and excluded by its filter.
    expect(plain).toBe(await bruteRank(target, () => true));
    // Another wording, so its own brute force: the unfiltered ranking of its query, switch articles kept.
    const [qv] = await rankAllChunks(agentId, [listed[1].query]);
    const among = qv.filter((c) => metaOf.get(c.document_id)!.product === "switch");
    expect(inSwitches).toBe(among.findIndex((c) => c.document_id === target) + 1);
    expect(inRouters).toBeNull();
    expect(inSwitches!).toBeLessThan(plain!);
  });

  it("a replay asks each logged question again with the filter it was made with", async () => {
    const filter = { product: "modem" };
    expect((await post({ query: "limiting bandwidth for guests", top_k: 3, filter })).status).toBe(200);
    const { questions } = await replayQuestions(agentId, { limit: 1 });
    expect(questions).toHaveLength(1);
    const modems = new Set(DOCS.filter((d) => d.metadata.product === "modem").map((d) => d.filename));
    expect(questions[0].now.documents.length).toBeGreaterThan(0);
    for (const f of questions[0].now.documents) expect(modems.has(f)).toBe(true);
    expect(questions[0].now.documents).toEqual(questions[0].then.documents);
  });
});
