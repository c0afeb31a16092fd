import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { INTERRUPTED } from "@/lib/db/eval-runs";
import { call } from "@/test/http";
import { ARTICLES, ingest, newAgent } from "@/test/helpers";
import * as pairs from "../pairs/route";
import * as one from "./[runId]/route";
import * as evals from "./route";

let id: string;
beforeAll(async () => {
  id = String(newAgent("evals api").id);
  for (const [name, text] of Object.entries(ARTICLES)) await ingest(Number(id), `${name}.txt`, text);
  await call(pairs.POST, {
    params: { id },
    json: [
      { query: "support SLA response", expected: "sla.txt" },
      { query: "refund within 30 days", expected: "refunds.txt" },
      { query: "forgot password link", expected: "password.txt" },
      { query: "billing period PDF", expected: "invoices.txt" },
    ],
  });
});

const post = (json: unknown, agent = id) => call(evals.POST, { json, params: { id: agent } });
const getRun = (runId: number, agent = id) => call(one.GET, { method: "GET", params: { id: agent, runId: String(runId) } });

describe("POST /api/agents/{id}/evals", () => {
  it("answers the run's figures in the documented shape", async () => {
    const res = await post({ k: 1 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ run_id: expect.any(Number), n_pairs: 4, k: 1, mrr: 1, recall_at_k: { "1": 1, "20": 1 } });
    expect(res.body.pairs[0]).toEqual({
      query: "support SLA response",
      expected: "sla.txt",
      answerable: true,
      refused: null,
      document_id: expect.any(Number),
      rank: 1,
      best_distance: expect.any(Number),
      top_distance: expect.any(Number),
      beyond_cut: false,
      hit: true,
      missing: false,
    });
  });

  it("starts in the background with wait: false and reports progress until done", async () => {
    const res = await post({ k: 2, wait: false });
    expect(res).toMatchObject({ status: 202, body: { run_id: expect.any(Number), status: "running" } });
    let run = (await getRun(res.body.run_id)).body;
    // Ranking needs a round trip to Chroma, so the first read comes before any pair is done.
    expect(run).toMatchObject({ status: "running", n_pairs: 4, done_pairs: 0 });
    const seen = [run.done_pairs];
    // Read until it is done, however long that takes on this machine (the test's timeout bounds it).
    while (run.status === "running") {
      await new Promise((r) => setTimeout(r, 20));
      run = (await getRun(res.body.run_id)).body;
      if (run.status === "running") expect(run.done_pairs).toBeLessThan(4);
      seen.push(run.done_pairs);
    }
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(run).toMatchObject({ status: "done", n_pairs: 4, done_pairs: 4, k: 2, mrr: 1, recall_at_k: { "2": 1 } });
    expect(run.pairs).toHaveLength(4);
  }, 120_000);

  it("answers 422 for a k outside 1..20 and for an agent without pairs, 404 for an unknown agent", async () => {
    for (const k of [0, 21, 2.5, "3"]) expect((await post({ k })).status, String(k)).toBe(422);
    const empty = await post({ k: 3 }, String(newAgent("no pairs").id));
    expect(empty).toMatchObject({ status: 422, body: { error: { code: "no_pairs" } } });
    expect((await post({ k: 3 }, "424242")).status).toBe(404);
  });

  it("keeps a failed run with its reason when retrieval fails", async () => {
    const agent = newAgent("stale model");
    await ingest(agent.id, "sla.txt", ARTICLES.sla);
    await call(pairs.POST, { params: { id: String(agent.id) }, json: [{ query: "support", expected: "sla.txt" }] });
    db().prepare("UPDATE documents SET embedding_model = 'old-model' WHERE agent_id = ?").run(agent.id);
    const res = await post({ k: 3 }, String(agent.id));
    expect(res).toMatchObject({ status: 409, body: { error: { code: "embedding_model_mismatch" } } });
    const runs = (await call(evals.GET, { method: "GET", params: { id: String(agent.id) } })).body.runs;
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ status: "failed", error: expect.stringContaining("old-model"), recall_at_k: null });
  });
});

describe("GET /api/agents/{id}/evals", () => {
  it("lists runs with the settings they ran with, and shows a run cut off by a restart as interrupted", async () => {
    // A row left 'running' by a previous server process: nothing in this process is executing it.
    const { lastInsertRowid } = db()
      .prepare(
        `INSERT INTO eval_runs (agent_id, k, status, n_pairs, done_pairs, embedding_model, document_count, chunk_count, chunk_settings, created_at)
         VALUES (?, 3, 'running', 4, 1, 'm', 4, 4, '[]', ?)`,
      )
      .run(Number(id), new Date().toISOString());
    const { body } = await call(evals.GET, { method: "GET", params: { id } });
    expect(body.runs.length).toBeGreaterThanOrEqual(3);
    expect(body.runs[0].settings).toMatchObject({
      document_count: 4,
      chunk_count: 4,
      chunk_settings: [{ chunk_size: 800, chunk_overlap: 100, documents: 4 }],
    });
    expect(body.runs.at(-1)).toMatchObject({ run_id: Number(lastInsertRowid), status: "failed", error: INTERRUPTED, done_pairs: 1 });
  });

  it("answers 404 for a run of another agent", async () => {
    const [first] = (await call(evals.GET, { method: "GET", params: { id } })).body.runs;
    const other = String(newAgent("other").id);
    expect((await getRun(first.run_id, other)).status).toBe(404);
    expect((await getRun(first.run_id)).status).toBe(200);
  });
});
