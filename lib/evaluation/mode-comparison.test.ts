import { describe, expect, it } from "vitest";
import type { EvalRun, PairResult } from "../db/eval-runs";
import type { RetrievalMode } from "../validations/agent";
import { compareModes, latestRunPerMode, pairKey, type ModeRun } from "./mode-comparison";

const result = (pairId: number | null, query: string, rank: number | null, extra: Partial<PairResult> = {}): PairResult => ({
  pair_id: pairId,
  query,
  expected: `${query}.md`,
  document_id: 1,
  rank,
  best_distance: rank && rank / 10,
  top_distance: 0.1,
  missing: false,
  beyond_cut: false,
  answerable: true,
  ...extra,
});

const modeRun = (mode: RetrievalMode, id: number, results: PairResult[]): ModeRun => ({
  mode,
  run: { id, status: "done", retrieval_mode: mode, n_pairs: results.length },
  results,
});

describe("comparing retrieval modes on the same pairs", () => {
  // At k = 3: "code" is found by keyword only, "paraphrase" by vector and hybrid only; "both" everywhere.
  const vector = modeRun("vector", 1, [
    result(1, "code", 9),
    result(2, "paraphrase", 1),
    result(3, "both", 1),
    result(4, "gone", null, { missing: true }),
  ]);
  const keyword = modeRun("keyword", 2, [
    result(1, "code", 1),
    result(2, "paraphrase", null),
    result(3, "both", 2),
    result(4, "gone", null, { missing: true }),
  ]);
  const hybrid = modeRun("hybrid", 3, [
    result(1, "code", 4),
    result(2, "paraphrase", 2),
    result(3, "both", 1),
    result(4, "gone", null, { missing: true }),
  ]);
  const cmp = compareModes([vector, keyword, hybrid], 3, "vector");

  it("lists the pairs hit in one mode and missed in another, the agent's mode's misses first", () => {
    expect(cmp.disagreements.map((d) => d.query)).toEqual(["code", "paraphrase"]);
    const [code, paraphrase] = cmp.disagreements;
    expect(code.outcomes).toEqual({
      vector: { rank: 9, beyondCut: false, hit: false },
      keyword: { rank: 1, beyondCut: false, hit: true },
      hybrid: { rank: 4, beyondCut: false, hit: false },
    });
    expect(code.inspectMode).toBe("vector");
    expect(paraphrase.inspectMode).toBe("keyword");
  });

  it("leaves out pairs whose document is not indexed and pairs every mode agrees on", () => {
    expect(cmp.disagreements.some((d) => d.query === "gone" || d.query === "both")).toBe(false);
  });

  it("counts a rank past the no-match cut as a miss", () => {
    const cut = modeRun("keyword", 2, [result(1, "code", 1, { beyond_cut: true })]);
    const plain = modeRun("vector", 1, [result(1, "code", 2)]);
    expect(compareModes([plain, cut], 3, "vector").disagreements[0].outcomes.keyword).toEqual({ rank: 1, beyondCut: true, hit: false });
  });

  it("computes recall at 1, 3, 5, 10 and the dashboard's k, and MRR, over the scored pairs", () => {
    expect(cmp.ks).toEqual([1, 3, 5, 10]);
    expect(compareModes([vector, keyword], 4, "vector").ks).toEqual([1, 3, 4, 5, 10]);
    const byMode = Object.fromEntries(cmp.rows.map((r) => [r.mode, r]));
    expect(byMode.vector.recall).toEqual({ "1": 2 / 3, "3": 2 / 3, "5": 2 / 3, "10": 1 });
    expect(byMode.keyword.recall).toEqual({ "1": 1 / 3, "3": 2 / 3, "5": 2 / 3, "10": 2 / 3 });
    expect(byMode.hybrid.mrr).toBeCloseTo((1 / 4 + 1 / 2 + 1) / 3, 12);
    expect(byMode.vector.curve).toHaveLength(20);
    expect(cmp.rows.map((r) => [r.mode, r.current, r.runId])).toEqual([
      ["vector", true, 1],
      ["keyword", false, 2],
      ["hybrid", false, 3],
    ]);
  });

  it("marks the best mode of each column, every tied mode alike", () => {
    expect(cmp.best["1"]).toEqual(["vector"]);
    expect(cmp.best["3"]).toEqual(["vector", "keyword", "hybrid"]);
    expect(cmp.best["10"]).toEqual(["vector", "hybrid"]);
    // MRR: vector (1/9 + 1 + 1) / 3 beats hybrid (1/4 + 1/2 + 1) / 3 and keyword (1 + 0 + 1/2) / 3.
    expect(cmp.best.mrr).toEqual(["vector"]);
  });
});

describe("picking each mode's run", () => {
  type Run = Pick<EvalRun, "id" | "status" | "retrieval_mode" | "n_pairs">;
  const run = (id: number, retrieval_mode: RetrievalMode, n_pairs = 2, status: Run["status"] = "done"): Run => ({
    id,
    retrieval_mode,
    n_pairs,
    status,
  });
  const current = [result(1, "a", 1), result(2, "b", 1)];
  const keys = current.map(pairKey);
  const resultsByRun: Record<number, PairResult[]> = {
    1: current,
    2: current,
    3: current,
    4: [result(1, "a", 1), result(5, "c", 1)],
    5: [result(1, "a edited", 1), result(2, "b", 1)],
    6: current,
    7: [result(2, "b", 1), result(1, "a", 1)],
  };
  const read: number[] = [];
  const resultsOf = (id: number) => (read.push(id), resultsByRun[id]);

  it("takes the latest finished run of each mode over the same pairs, in the order of the modes", () => {
    read.length = 0;
    const runs = [
      run(1, "keyword"),
      run(2, "vector"),
      run(3, "vector"),
      run(4, "keyword"),
      run(5, "keyword"),
      run(6, "hybrid", 2, "failed"),
      run(7, "hybrid"),
      run(8, "hybrid", 3),
    ];
    const picked = latestRunPerMode(runs, keys, resultsOf);
    // 4 has another pair, 5 an edited query, 6 failed, 8 more pairs; 7 lists the same pairs in another order.
    expect(picked.map((p) => [p.mode, p.run.id])).toEqual([
      ["vector", 3],
      ["keyword", 1],
      ["hybrid", 7],
    ]);
    // Failed runs, runs of another size and older runs of a mode already found are never read.
    expect(read.sort()).toEqual([1, 3, 4, 5, 7]);
  });

  it("finds nothing when no run is over the current pairs", () => {
    expect(latestRunPerMode([run(4, "keyword"), run(8, "hybrid", 3)], keys, resultsOf)).toEqual([]);
  });
});
