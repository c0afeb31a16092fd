import { describe, expect, it } from "vitest";
import { pairOutcome } from "../evaluation/run";
import type { LocatedChunk } from "../retrieval/retrieve";
import { isHit, meanReciprocalRank, recallAtK, summarize, type PairOutcome } from "./metrics";

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

  it("counts a pair past the no-match cut as a miss at every k and 0 in MRR, but still scored", () => {
    const cut: PairOutcome = { rank: 1, missing: false, beyond_cut: true };
    expect(isHit(cut, 1)).toBe(false);
    expect(isHit(cut, 20)).toBe(false);
    expect(recallAtK([found(1), cut], 5)).toBe(0.5);
    expect(meanReciprocalRank([found(2), cut])).toBe(0.25);
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

describe("a pair's rank from its located chunks", () => {
  const chunk = (document_id: number, chunk_index: number, distance: number, rank: number | null): LocatedChunk => ({
    document_id,
    chunk_index,
    distance,
    rank,
    unreachable: false,
  });
  const pair = (expected: string) => ({
    id: 1,
    agent_id: 1,
    query: "q",
    expected_filename: expected,
    note: null,
    source: "manual" as const,
    status: "accepted" as const,
    created_at: "",
    updated_at: "",
    filter: null,
  });
  const ids = new Map([
    ["seven.md", [7]],
    ["nine.md", [9]],
    ["two-versions.md", [9, 2]],
  ]);

  it("is the rank of the document's closest chunk, with its distance", () => {
    expect(pairOutcome(pair("seven.md"), [chunk(7, 4, 0.3, 3), chunk(7, 0, 0.5, null)], ids)).toMatchObject({
      rank: 3,
      best_distance: 0.3,
      document_id: 7,
      missing: false,
    });
  });

  it("is missing when no indexed document has the filename, and not found when it is indexed but has no chunks", () => {
    expect(pairOutcome(pair("gone.md"), [], ids)).toMatchObject({ rank: null, missing: true, document_id: null });
    expect(pairOutcome(pair("nine.md"), [], ids)).toMatchObject({ rank: null, missing: false, document_id: 9 });
  });

  it("takes the best of several indexed versions of one filename", () => {
    expect(pairOutcome(pair("two-versions.md"), [chunk(2, 1, 0.2, 2), chunk(9, 0, 0.25, 4)], ids)).toMatchObject({
      rank: 2,
      document_id: 2,
    });
  });
});
