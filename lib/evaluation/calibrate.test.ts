import { describe, expect, it } from "vitest";
import type { PairResult } from "../db/eval-runs";
import { calibrateCut, calibrateRerankCut } from "./calibrate";

const answerable = (rank: number | null, best: number | null): PairResult => ({
  pair_id: null,
  query: "q",
  expected: "a.md",
  document_id: 1,
  rank,
  best_distance: best,
  top_distance: 0.2,
  missing: false,
  beyond_cut: false,
  answerable: true,
});
const unanswerable = (top: number | null): PairResult => ({
  pair_id: null,
  query: "q",
  expected: "",
  document_id: null,
  rank: null,
  best_distance: null,
  top_distance: top,
  missing: false,
  beyond_cut: false,
  answerable: false,
});

describe("calibrating the no-match cut", () => {
  // Answerable: found at rank 1 (0.30) and 2 (0.50), and one at rank 5 (0.40), a miss at k = 3 whatever the cut.
  // Unanswerable: their queries' closest chunks are at 0.45 and 0.70.
  const results = [answerable(1, 0.3), answerable(2, 0.5), answerable(5, 0.4), unanswerable(0.45), unanswerable(0.7)];

  it("scores every candidate cut by the answered and refused shares, and recommends the best balanced accuracy", () => {
    const c = calibrateCut(results, 3, null);
    expect(c).toMatchObject({ k: 3, answerable: 3, unanswerable: 2, reason: null });
    const at = (cut: number | null) => c.points.find((p) => p.cut === cut)!;
    expect(c.points.map((p) => p.cut)).toEqual([0.29, 0.35, 0.425, 0.475, 0.6, null]);
    expect(at(0.29)).toMatchObject({ answered: 0, refused: 1, balanced: 0.5 });
    expect(at(0.35)).toMatchObject({ answered: 1 / 3, refused: 1 });
    expect(at(0.475)).toMatchObject({ answered: 1 / 3, refused: 0.5 });
    expect(at(0.6)).toMatchObject({ answered: 2 / 3, refused: 0.5 });
    expect(at(null)).toMatchObject({ answered: 2 / 3, refused: 0 });
    expect(c.recommended).toEqual(at(0.35));
    expect(c.current).toEqual(at(null));
  });

  it("gives the figures at the agent's current cut too", () => {
    expect(calibrateCut(results, 3, 0.6).current).toMatchObject({ cut: 0.6, answered: 2 / 3, refused: 0.5 });
    // At k = 5 the rank-5 pair counts as answered when the cut keeps it.
    expect(calibrateCut(results, 5, 0.425).current).toMatchObject({ answered: 2 / 3, refused: 1 });
  });

  it("says why it cannot recommend a cut without unanswerable pairs, rather than suggesting one", () => {
    const c = calibrateCut(
      results.filter((r) => r.answerable),
      3,
      null,
    );
    expect(c.recommended).toBeNull();
    expect(c.reason).toMatch(/No unanswerable pairs/);
    expect(calibrateCut([unanswerable(0.4)], 3, null)).toMatchObject({
      recommended: null,
      reason: expect.stringMatching(/No answerable pair/),
    });
    expect(calibrateCut([answerable(1, 0.3), unanswerable(null)], 3, null).reason).toMatch(/run an evaluation again/);
  });
});

describe("calibrating a cut on the reranker's score", () => {
  // Scores of any sign, higher is better: answerable documents score 2.1 and 1.4, the questions
  // that should get nothing have a first result scoring -0.3 and 0.2.
  const scored = (r: PairResult, rerank: number | null, top: number | null): PairResult => ({
    ...r,
    rerank_score: rerank,
    top_rerank_score: top,
  });
  const results = [
    scored(answerable(1, 0.3), 2.1, 2.1),
    scored(answerable(2, 0.4), 1.4, 1.6),
    scored(unanswerable(0.5), null, -0.3),
    scored(unanswerable(0.6), null, 0.2),
  ];

  it("recommends a cut between the unanswerable questions' best score and the answerable documents' worst", () => {
    const c = calibrateRerankCut(results, 3, null);
    expect(c.recommended!.cut).toBeGreaterThan(0.2);
    expect(c.recommended!.cut).toBeLessThan(1.4);
    expect(c.recommended).toMatchObject({ answered: 1, refused: 1, balanced: 1 });
    // Strictest first, as with distances, and no cut last.
    const cuts = c.points.map((p) => p.cut);
    expect(cuts.at(-1)).toBeNull();
    expect(cuts.slice(0, -1)).toEqual([...(cuts.slice(0, -1) as number[])].sort((a, b) => b - a));
    expect(c.points.at(-1)).toMatchObject({ answered: 1, refused: 0 });
  });

  it("gives the figures at the agent's cut now", () => {
    // At 1.5, the second document (1.4) is dropped and both unanswerable questions are refused.
    expect(calibrateRerankCut(results, 3, 1.5).current).toMatchObject({ cut: 1.5, answered: 0.5, refused: 1 });
  });
});
