import { describe, expect, it } from "vitest";
import { batchSize, EVAL_BATCH, MAX_RESULTS_PER_CALL, pairOutcome } from "./run";
import { isHit, meanReciprocalRank, recallAtK, summarize, type PairOutcome } from "./metrics";
import type { SearchResult } from "../retrieval/retrieve";

const found = (rank: number | null): PairOutcome => ({ rank, missing: false });
const missing: PairOutcome = { rank: null, missing: true };

describe("recall@k and MRR on hand-made rankings", () => {
  // Ranks 1, 2, 5 and one never ranked: recall@1 = 1/4, @2 = 2/4, @5 = 3/4.
  const outcomes = [found(1), found(2), found(5), found(null)];

  it("counts a pair as a hit when its rank is at most k", () => {
    expect(recallAtK(outcomes, 1)).toBe(0.25);
    expect(recallAtK(outcomes, 2)).toBe(0.5);
    expect(recallAtK(outcomes, 4)).toBe(0.5);
    expect(recallAtK(outcomes, 5)).toBe(0.75);
    expect(recallAtK(outcomes, 20)).toBe(0.75);
    expect(isHit(found(3), 3)).toBe(true);
    expect(isHit(found(4), 3)).toBe(false);
    expect(isHit(found(null), 20)).toBe(false);
  });

  it("averages 1/rank, with 0 for a document that was not ranked", () => {
    expect(meanReciprocalRank(outcomes)).toBeCloseTo((1 + 1 / 2 + 1 / 5 + 0) / 4, 12);
    expect(meanReciprocalRank([found(1), found(1)])).toBe(1);
  });

  it("leaves pairs whose document is missing out of both denominators and reports them", () => {
    const withMissing = [...outcomes, missing, missing];
    expect(recallAtK(withMissing, 2)).toBe(0.5);
    expect(meanReciprocalRank(withMissing)).toBeCloseTo((1 + 0.5 + 0.2) / 4, 12);
    expect(isHit(missing, 20)).toBeNull();
    const s = summarize(withMissing);
    expect(s).toMatchObject({ n_pairs: 6, n_scored: 4, n_missing: 2 });
    expect(Object.keys(s.recall_at_k)).toEqual(Array.from({ length: 20 }, (_, i) => String(i + 1)));
    expect(s.recall_at_k["1"]).toBe(0.25);
    expect(s.recall_at_k["5"]).toBe(0.75);
  });

  it("answers null, not 0 or NaN, when no pair can be scored", () => {
    const s = summarize([missing]);
    expect(s.recall_at_k["3"]).toBeNull();
    expect(s.mrr).toBeNull();
    expect(summarize([]).mrr).toBeNull();
  });
});

describe("a pair's rank in a full ranking", () => {
  const chunk = (document_id: number, chunk_index: number, score: number): SearchResult => ({
    document_id,
    chunk_index,
    score,
    filename: `doc${document_id}.md`,
    chunk_text: "",
  });
  // Document 7's chunks land at positions 3 and 5: its rank is 3, the first one.
  const ranking = [chunk(1, 0, 0.1), chunk(2, 0, 0.2), chunk(7, 4, 0.3), chunk(1, 1, 0.4), chunk(7, 0, 0.5)];
  const pair = (expected: string) => ({ id: 1, agent_id: 1, query: "q", expected_filename: expected, note: null, created_at: "", updated_at: "" });
  const ids = new Map([
    ["seven.md", [7]],
    ["one.md", [1]],
    ["nine.md", [9]],
    ["two-versions.md", [9, 2]],
  ]);

  it("is the position of the document's first chunk, with its distance", () => {
    expect(pairOutcome(pair("seven.md"), ranking, ids)).toMatchObject({ rank: 3, best_distance: 0.3, document_id: 7, missing: false });
    expect(pairOutcome(pair("one.md"), ranking, ids)).toMatchObject({ rank: 1, best_distance: 0.1 });
  });

  it("is missing when no indexed document has the filename, and not found when it is indexed but not ranked", () => {
    expect(pairOutcome(pair("gone.md"), ranking, ids)).toMatchObject({ rank: null, missing: true, document_id: null });
    expect(pairOutcome(pair("nine.md"), ranking, ids)).toMatchObject({ rank: null, missing: false, document_id: 9 });
  });

  it("takes the best of several indexed versions of one filename", () => {
    expect(pairOutcome(pair("two-versions.md"), ranking, ids)).toMatchObject({ rank: 2, document_id: 2 });
  });
});

describe("batch size", () => {
  it("keeps queries × chunks of one Chroma call under its limit", () => {
    expect(batchSize(6)).toBe(EVAL_BATCH);
    expect(batchSize(1100)).toBe(29);
    expect(batchSize(1100) * 1100).toBeLessThanOrEqual(MAX_RESULTS_PER_CALL);
    expect(batchSize(MAX_RESULTS_PER_CALL)).toBe(1);
    expect(batchSize(0)).toBe(EVAL_BATCH);
  });
});
