import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import * as documentsApi from "@/app/api/agents/[id]/documents/route";
import * as evals from "@/app/api/agents/[id]/evals/route";
import * as pairsApi from "@/app/api/agents/[id]/pairs/route";
import { parseCsv } from "@/lib/evaluation/pair-files";
import { newAgent } from "../test/helpers";
import { call, filesForm } from "../test/http";
import { demoArticles, DEMO_EVAL_K } from "./demo-seed.mjs";

// The demo agent is seeded through these same routes (scripts/demo-seed.mjs); a newcomer's first
// look at every page depends on what this content does with the local embedder.
const DEMO = path.join(import.meta.dirname, "..", "demo");

interface PairOutcome {
  query: string;
  expected: string;
  answerable: boolean;
  rank: number | null;
  hit: boolean | null;
}

let uploaded: { filename: string; chunk_count: number; status: string }[];
let run: { status: string; n_pairs: number; n_unanswerable: number; pairs: PairOutcome[] };

beforeAll(async () => {
  const id = String(newAgent("demo content").id);
  const form = filesForm(demoArticles(DEMO).map((name: string) => [name, fs.readFileSync(path.join(DEMO, name), "utf8")]));
  const res = await call(documentsApi.POST, { body: form, params: { id } });
  expect(res.status).toBe(201);
  uploaded = res.body.documents;
  const imported = await call(pairsApi.POST, {
    body: fs.readFileSync(path.join(DEMO, "pairs.csv"), "utf8"),
    headers: { "content-type": "text/csv" },
    params: { id },
  });
  expect(imported.body.rejected).toEqual([]);
  run = (await call(evals.POST, { json: { k: DEMO_EVAL_K }, params: { id } })).body;
}, 120_000);

describe("the demo content", () => {
  it("has articles of several chunks each at the default chunk settings", () => {
    expect(uploaded.length).toBeGreaterThanOrEqual(6);
    for (const d of uploaded) {
      expect(d.status, d.filename).toBe("ready");
      expect(d.chunk_count, d.filename).toBeGreaterThanOrEqual(2);
    }
  });

  it("has a dozen labeled pairs, one of them unanswerable, and a run that finds most of them", () => {
    expect(run.status).toBe("done");
    expect(run.n_pairs).toBeGreaterThanOrEqual(12);
    expect(run.n_unanswerable).toBe(1);
    const answerable = run.pairs.filter((p) => p.answerable);
    const ranks = answerable.map((p) => `${p.query} -> ${p.expected}: ${p.rank}`).join("\n");
    expect(answerable.filter((p) => p.hit).length / answerable.length, ranks).toBeGreaterThanOrEqual(0.75);
  });

  it("misses the pairs its notes say it misses, so the miss diagnosis has something to show", () => {
    const noted = parseCsv(fs.readFileSync(path.join(DEMO, "pairs.csv"), "utf8"))
      .filter((r) => String(r.note ?? "").startsWith(`A miss at k = ${DEMO_EVAL_K}`))
      .map((r) => r.query);
    expect(noted.length).toBeGreaterThanOrEqual(1);
    const missed = run.pairs.filter((p) => p.answerable && p.hit === false);
    expect(missed.map((p) => p.query).sort()).toEqual(noted.sort());
    for (const p of missed) expect(p.rank, p.query).toBeGreaterThan(DEMO_EVAL_K);
  });
});
