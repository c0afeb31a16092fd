import { beforeAll, describe, expect, it } from "vitest";
import * as agentApi from "@/app/api/agents/[id]/route";
import * as evals from "@/app/api/agents/[id]/evals/route";
import * as pairsApi from "@/app/api/agents/[id]/pairs/route";
import * as calibrationApi from "@/app/api/agents/[id]/evals/[runId]/calibration/route";
import { getAgent, updateAgent } from "../db/agents";
import { createPair } from "../db/pairs";
import { embedder } from "../embeddings/configured";
import { ARTICLES, ingest, newAgent } from "../../test/helpers";
import { call } from "../../test/http";
import { inspectQuery } from "./inspect";
import { searchAgentDocuments } from "./retrieve";

let agentId: number;
const QUERY = "how long until my refund reaches the card";

beforeAll(async () => {
  agentId = newAgent("no-match cut").id;
  for (const [name, text] of Object.entries(ARTICLES)) await ingest(agentId, `${name}.txt`, text);
});

const patch = (json: unknown) => call(agentApi.PATCH, { method: "PATCH", json, params: { id: String(agentId) } });

describe("the no-match cut", () => {
  it("is set through PATCH with the model it is for, refused when it is not a distance, and cleared with null", async () => {
    expect(getAgent(agentId)).toMatchObject({ max_distance: null, max_distance_model: null });
    const set = await patch({ max_distance: 0.75 });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ max_distance: 0.75, max_distance_model: embedder().model });
    for (const bad of [0, -0.1, 2.5, "0.7"]) {
      const res = await patch({ max_distance: bad });
      expect(res.status, String(bad)).toBe(422);
      expect(res.body.error.message).toMatch(/max_distance/);
    }
    expect(getAgent(agentId).max_distance).toBe(0.75); // a refused change changes nothing
    expect((await patch({ name: getAgent(agentId).name })).body.max_distance).toBe(0.75); // other fields leave it
    expect((await patch({ max_distance: null })).body).toMatchObject({ max_distance: null, max_distance_model: null });
  });

  it("drops search results farther than the cut, down to no results at all, in search and inspector alike", async () => {
    const all = await searchAgentDocuments(agentId, QUERY, 4);
    expect(all).toHaveLength(4);
    const [d1, d2, d3] = all.map((r) => r.score);
    expect(d1).toBeLessThan(d3);
    await patch({ max_distance: (d2 + d3) / 2 });
    const cut = await searchAgentDocuments(agentId, QUERY, 4);
    expect(cut).toEqual(all.slice(0, 2));

    // The inspector still lists top_k, with the cut to mark what the search drops.
    const inspected = await inspectQuery(agentId, QUERY, 4, all[3].document_id);
    expect(inspected.results).toEqual(all);
    expect(inspected.cut).toBe((d2 + d3) / 2);
    expect(inspected.expected).toMatchObject({ best_rank: 4, beyond_cut: true });
    expect((await inspectQuery(agentId, QUERY, 4, all[0].document_id)).expected!.beyond_cut).toBe(false);

    await patch({ max_distance: d1 / 2 });
    expect(await searchAgentDocuments(agentId, QUERY, 4)).toEqual([]);
    await patch({ max_distance: null });
    expect(await searchAgentDocuments(agentId, QUERY, 4)).toEqual(all);
  });

  it("does not apply a cut set for another embedding model, and says so", async () => {
    updateAgent(agentId, { cut: { maxDistance: 0.0001, model: "another-model-v1" } });
    expect(await searchAgentDocuments(agentId, QUERY, 3)).toHaveLength(3);
    const inspected = await inspectQuery(agentId, QUERY, 3);
    expect(inspected.cut).toBeNull();
    expect(inspected.stale_cut).toEqual({ max_distance: 0.0001, model: "another-model-v1" });
    updateAgent(agentId, { cut: null });
  });

  it("counts a pair past the cut as a miss in an evaluation, and records each query's closest distance", async () => {
    const pairs: [string, string][] = [
      [QUERY, "refunds.txt"],
      ["premium support first response hours", "sla.txt"],
      ["forgot password link", "password.txt"],
    ];
    for (const [query, expected] of pairs) createPair(agentId, { query, expected_filename: expected });
    const run = async () => (await call(evals.POST, { json: { k: 3 }, params: { id: String(agentId) } })).body;

    const before = await run();
    expect(before.settings.max_distance).toBeNull();
    expect(before.pairs.every((p: { hit: boolean }) => p.hit)).toBe(true);
    for (const p of before.pairs) {
      expect(p.top_distance).toBeCloseTo((await searchAgentDocuments(agentId, p.query, 1))[0].score, 6);
      expect(p.beyond_cut).toBe(false);
    }
    // A cut just closer than the farthest expected document: that pair alone becomes a miss.
    const distances = before.pairs.map((p: { best_distance: number }) => p.best_distance);
    const farthest = Math.max(...distances);
    await patch({ max_distance: farthest - 1e-6 });
    const after = await run();
    expect(after.settings.max_distance).toBeCloseTo(farthest - 1e-6, 9);
    const missed = after.pairs.filter((p: { hit: boolean }) => !p.hit);
    expect(missed).toHaveLength(1);
    expect(missed[0]).toMatchObject({ beyond_cut: true, rank: before.pairs[distances.indexOf(farthest)].rank });
    expect(after.recall_at_k["3"]).toBeCloseTo(2 / 3, 9);
    expect(after.mrr).toBeLessThan(before.mrr);
    await patch({ max_distance: null });
  });
});

describe("calibrating the cut from labeled pairs", () => {
  it("takes unanswerable pairs, leaves them out of recall, and recommends a cut that a run then confirms", async () => {
    const agent = newAgent("calibration");
    for (const [name, text] of Object.entries(ARTICLES)) await ingest(agent.id, `${name}.txt`, text);
    const id = String(agent.id);
    const csv = [
      "query,expected,note,answerable",
      "premium support first response hours,sla.txt,,",
      "refund to the original payment method,refunds.txt,,true",
      "reset email link one hour,password.txt,,",
      "download invoices pdf billing settings,invoices.txt,,",
      "what is the capital of peru,,off topic,false",
      "recipe for banana bread,,,false",
      "tides and moon phases tonight,,,false",
      "missing expected by mistake,,,",
    ].join("\n");
    const imported = await call(pairsApi.POST, { body: csv, headers: { "content-type": "text/csv" }, params: { id } });
    expect(imported.status).toBe(201);
    expect(imported.body.accepted).toBe(7);
    expect(imported.body.rejected).toEqual([expect.objectContaining({ row: 9, reason: "unknown document" })]);
    const listed = (await call(pairsApi.GET, { method: "GET", params: { id } })).body.pairs as { expected: string; answerable: boolean }[];
    expect(listed.filter((p) => !p.answerable).map((p) => p.expected)).toEqual(["", "", ""]);

    const run = async () => (await call(evals.POST, { json: { k: 3 }, params: { id } })).body;
    const first = await run();
    // Unanswerable pairs are neither hits nor misses: recall is over the 4 answerable ones.
    expect(first.n_scored).toBe(4);
    const off = first.pairs.filter((p: { answerable: boolean }) => !p.answerable);
    expect(off.map((p: { hit: null; refused: boolean }) => [p.hit, p.refused])).toEqual([
      [null, false],
      [null, false],
      [null, false],
    ]);

    const calibration = (await call(calibrationApi.GET, { method: "GET", params: { id, runId: String(first.run_id) } })).body;
    expect(calibration).toMatchObject({ k: 3, answerable: 4, unanswerable: 3, reason: null, current: { cut: null, refused: 0 } });
    const best = calibration.recommended;
    expect(best.cut).toBeGreaterThan(0);
    expect(best.balanced).toBeGreaterThan(calibration.current.balanced);

    // Applied, the next run answers and refuses exactly as the calibration said.
    await call(agentApi.PATCH, { method: "PATCH", json: { max_distance: best.cut }, params: { id } });
    const second = await run();
    const answered = second.pairs.filter((p: { answerable: boolean; hit: boolean }) => p.answerable && p.hit).length / 4;
    const refused = second.pairs.filter((p: { answerable: boolean; refused: boolean }) => !p.answerable && p.refused).length / 3;
    expect([answered, refused]).toEqual([best.answered, best.refused]);
    for (const p of second.pairs.filter((p: { answerable: boolean; refused: boolean }) => !p.answerable && p.refused)) {
      expect(await searchAgentDocuments(agent.id, p.query, 3)).toEqual([]); // refused: the search returns nothing
    }
    expect(second.settings.max_distance).toBe(best.cut);
  });
});
