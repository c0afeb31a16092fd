import { beforeAll, describe, expect, it, onTestFinished } from "vitest";
import * as evals from "@/app/api/agents/[id]/evals/route";
import * as evalRun from "@/app/api/agents/[id]/evals/[runId]/route";
import * as pairsApi from "@/app/api/agents/[id]/pairs/route";
import { collectionFor } from "../vector-store/client";
import { embedder } from "../embeddings/configured";
import { removeDocument } from "../ingest/remove";
import { embedForAgent } from "../retrieval/retrieve";
import { useExactLimits } from "../retrieval/exact";
import { ARTICLES, ingest, newAgent } from "../../test/helpers";
import { call } from "../../test/http";
import { EVAL_BATCH, EVAL_BATCH_CHROMA, EVAL_CONCURRENCY } from "./run";

// Long enough to be cut into several chunks at 160/20, so a document's chunks rank apart.
const GUIDE = [
  "Getting started guide. Create a workspace, invite your team and connect your calendar.",
  "Notifications can be sent by email or by push message; choose them in the profile settings.",
  "Two-factor authentication protects the account with a code from an authenticator app.",
  "Data export: download every project as a ZIP archive of CSV files from the admin console.",
  "The mobile app works offline and syncs changes when the phone is back online.",
].join(" ");

let agentId: number;
let ids: Record<string, number>;
let guideChunks: number;

beforeAll(async () => {
  const agent = newAgent("eval integration");
  agentId = agent.id;
  ids = {};
  for (const [name, text] of Object.entries(ARTICLES)) ids[name] = (await ingest(agentId, `${name}.txt`, text)).document_id!;
  const guide = await ingest(agentId, "guide.md", GUIDE, 160, 20);
  [ids.guide, guideChunks] = [guide.document_id!, guide.chunk_count];
  ids.temp = (await ingest(agentId, "temporary.txt", "Temporary notice about the office move to the new building.")).document_id!;
});

/** The whole ranking computed here from the stored vectors, by plain cosine distance: no Chroma query, no app ranking code. */
async function independentRank(query: string, documentId: number): Promise<{ rank: number | null; distance: number | null }> {
  const collection = await collectionFor(embedder());
  const stored = await collection.get({ where: { agent_id: agentId }, include: ["embeddings", "metadatas"] });
  // The query vector is the product's (weighted by the agent's chunks); the ranking is computed here.
  const [q] = (await embedForAgent(agentId, [query])).vectors;
  const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  const scored = stored.embeddings.map((e, i) => {
    const v = Array.from(e as ArrayLike<number>);
    const dot = v.reduce((s, x, j) => s + x * q[j], 0);
    return { distance: 1 - dot / (norm(v) * norm(q)), document_id: stored.metadatas[i]!.document_id as number };
  });
  scored.sort((a, b) => a.distance - b.distance);
  const i = scored.findIndex((s) => s.document_id === documentId);
  if (i < 0) return { rank: null, distance: null };
  // A tie at the boundary would make the rank ambiguous; the test set has none.
  expect(scored.filter((s) => Math.abs(s.distance - scored[i].distance) < 1e-6 && s.document_id !== documentId)).toEqual([]);
  return { rank: i + 1, distance: scored[i].distance };
}

describe("an evaluation run against a real Chroma and SQLite", () => {
  it("imports pairs, runs, and its ranks, recall@k and MRR match a ranking computed independently", async () => {
    const words = [
      "support",
      "refund",
      "password",
      "invoice",
      "workspace",
      "notifications",
      "authentication",
      "export",
      "mobile",
      "billing",
      "team",
      "email",
    ];
    const targets = ["sla.txt", "refunds.txt", "password.txt", "invoices.txt", "guide.md"];
    // Enough pairs for more than one batch, with ranks spread over the whole list.
    // More than EVAL_BATCH_CHROMA of them, so that a run ranked by Chroma takes two batches too.
    const generated = words.flatMap((w, i) =>
      words.flatMap((other, j) => (other === w ? [] : [`"${w} ${other}",${targets[(i + j) % targets.length]}`])),
    );
    const csv = [
      "query,expected,note",
      "support SLA response time,sla.txt,the obvious one",
      "how long do refunds take,refunds.txt",
      `export project as ZIP,${ids.guide}`,
      "office move,temporary.txt",
      "lunch menu,nowhere.txt",
      "   ,sla.txt",
      "support SLA response time,sla.txt",
      ...generated,
    ].join("\n");
    const imported = await call(pairsApi.POST, { body: csv, headers: { "content-type": "text/csv" }, params: { id: String(agentId) } });
    expect(imported.status).toBe(201);
    expect(imported.body.accepted).toBe(4 + generated.length);
    expect(imported.body.rejected.map((r: { row: number; reason: string }) => [r.row, r.reason])).toEqual([
      [6, "unknown document"],
      [7, "empty query"],
      [8, "duplicate"],
    ]);
    const pairs = (await call(pairsApi.GET, { method: "GET", params: { id: String(agentId) } })).body.pairs;
    expect(pairs.find((p: { query: string }) => p.query === "export project as ZIP").expected).toBe("guide.md");
    expect(pairs.length).toBeGreaterThan(EVAL_BATCH);

    // The temporary document goes after the import: its pair must be reported missing, not a miss.
    await removeDocument(agentId, ids.temp);

    const res = await call(evals.POST, { json: { k: 3 }, params: { id: String(agentId) } });
    expect(res.status).toBe(201);
    const run = res.body;
    expect(run).toMatchObject({
      status: "done",
      k: 3,
      n_pairs: pairs.length,
      done_pairs: pairs.length,
      n_missing: 1,
      n_scored: pairs.length - 1,
    });
    expect(run.settings).toMatchObject({
      embedding_model: embedder().model,
      query_weighting: "agent-idf-v1",
      document_count: 5,
      chunk_settings: [
        { chunk_size: 800, chunk_overlap: 100, chunk_strategy: "boundary", documents: 4 },
        { chunk_size: 160, chunk_overlap: 20, chunk_strategy: "boundary", documents: 1 },
      ],
    });
    expect(guideChunks).toBeGreaterThan(2);
    expect(run.settings.chunk_count).toBe(4 + guideChunks);

    const gone = run.pairs.find((p: { expected: string }) => p.expected === "temporary.txt");
    expect(gone).toMatchObject({ missing: true, hit: null, rank: null, best_distance: null });

    const docIdOf: Record<string, number> = {
      "sla.txt": ids.sla,
      "refunds.txt": ids.refunds,
      "password.txt": ids.password,
      "invoices.txt": ids.invoices,
      "guide.md": ids.guide,
    };
    const ranks: (number | null)[] = [];
    for (const p of run.pairs.filter((x: { missing: boolean }) => !x.missing)) {
      const expected = await independentRank(p.query, docIdOf[p.expected]);
      expect(p.rank, p.query).toBe(expected.rank);
      expect(p.best_distance).toBeCloseTo(expected.distance!, 5);
      expect(p.hit).toBe(expected.rank !== null && expected.rank <= 3);
      ranks.push(expected.rank);
    }
    expect(new Set(ranks).size).toBeGreaterThan(3);
    for (let k = 1; k <= 20; k++) {
      expect(run.recall_at_k[String(k)], `recall@${k}`).toBeCloseTo(ranks.filter((r) => r !== null && r <= k).length / ranks.length, 12);
    }
    expect(run.mrr).toBeCloseTo(ranks.reduce((s: number, r) => s + (r ? 1 / r : 0), 0) / ranks.length, 12);
    expect(run.recall_at_k["1"]).toBeLessThan(run.recall_at_k["20"]);

    const listed = await call(evals.GET, { method: "GET", params: { id: String(agentId) } });
    expect(listed.body.runs.at(-1)).toMatchObject({ run_id: run.run_id, status: "done", recall_at_k: run.recall_at_k });
  });
});

describe("a run of several batches", () => {
  it("keeps two batches' Chroma queries in flight at once when Chroma ranks them, and ranks every pair as the exact run before (checked against an independent ranking)", async () => {
    // Exact ranking off: the agent is served by Chroma's index, whose queries are counted here.
    useExactLimits({ chunks: 0 });
    onTestFinished(() => useExactLimits({}));
    const before = (await call(evals.GET, { method: "GET", params: { id: String(agentId) } })).body.runs.at(-1);
    expect(before.n_pairs).toBeGreaterThan(EVAL_BATCH_CHROMA); // the test before imported them
    let inFlight = 0;
    let most = 0;
    // Every query is held until EVAL_CONCURRENCY of them are in flight together, and none after
    // that: the batches' queries overlap because the run sends them together, whatever the speed
    // of the machine. A run that sent one batch at a time would never get there (the test would
    // time out); one that sent more at once would show more in flight.
    let fill: () => void = () => {};
    const full = new Promise<void>((r) => (fill = r));
    const original = globalThis.fetch;
    globalThis.fetch = async (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      if (!url.endsWith("/query")) return original(input, init);
      most = Math.max(most, ++inFlight);
      if (inFlight >= EVAL_CONCURRENCY) fill();
      try {
        await full;
        return await original(input, init);
      } finally {
        inFlight--;
      }
    };
    let run;
    try {
      run = (await call(evals.POST, { json: { k: 3 }, params: { id: String(agentId) } })).body;
    } finally {
      globalThis.fetch = original;
    }
    expect(most).toBe(EVAL_CONCURRENCY);
    expect(run).toMatchObject({ status: "done", n_pairs: before.n_pairs, done_pairs: before.n_pairs });
    // Pairs are saved in another order, so sums differ in the last bits.
    for (const [k, recall] of Object.entries(before.recall_at_k)) expect(run.recall_at_k[k]).toBeCloseTo(recall as number, 12);
    expect(run.mrr).toBeCloseTo(before.mrr, 12);
    const ranks = (r: { pairs: { query: string; rank: number | null }[] }) => Object.fromEntries(r.pairs.map((p) => [p.query, p.rank]));
    const earlier = (await call(evalRun.GET, { method: "GET", params: { id: String(agentId), runId: String(before.run_id) } })).body;
    expect(earlier.pairs).toHaveLength(before.n_pairs);
    expect(Object.keys(ranks(earlier))).toHaveLength(before.n_pairs);
    expect(ranks(run)).toEqual(ranks(earlier));
  });
});

describe("a large agent", () => {
  it("ranks more chunks than one Chroma call can return for a whole batch of queries", async () => {
    const big = newAgent("eval big");
    // 1,100 chunks: 32 queries at a time would ask Chroma for 35,200 results in one call, past its limit.
    const words = Array.from({ length: 1100 }, (_, i) => `topic${i} alpha${i % 37} beta${i % 53} gamma${i % 71} `.padEnd(100, "x "));
    const doc = await ingest(big.id, "big.txt", words.join(""), 100, 0, "fixed");
    expect(doc.chunk_count).toBe(1100);
    const rows = Array.from({ length: 40 }, (_, i) => ({ query: `topic${i * 7} alpha${(i * 7) % 37}`, expected: "big.txt" }));
    expect((await call(pairsApi.POST, { json: rows, params: { id: String(big.id) } })).body.accepted).toBe(40);
    const res = await call(evals.POST, { json: { k: 1 }, params: { id: String(big.id) } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: "done", done_pairs: 40, recall_at_k: { "1": 1 } });
  });
});
