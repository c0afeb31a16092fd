import { describe, expect, it } from "vitest";
import { capped, indexMissSentence, twoDistances } from "./index-miss";

const miss = { filename: "refunds.md", chunk_index: 2, distance: 0.86412, exact_rank: 1, nearer_than: 1, nearer_than_distance: 0.90588 };

describe("indexMissSentence", () => {
  it("names the chunk, the result it is nearer than and both distances, and says the index did not return it", () => {
    expect(indexMissSentence(miss)).toBe(
      '"refunds.md" chunk 2 is nearer than result 1 (0.8641 against 0.9059), but the vector index did not return it: an approximate-search miss.',
    );
  });

  it("speaks of the vector ranking's result when the results are ranked another way", () => {
    expect(indexMissSentence({ ...miss, nearer_than: 3 }, "vector ranking")).toContain("nearer than the vector ranking's result 3 (");
  });

  it("says where it ranks when the index returned fewer results than asked for, all nearer", () => {
    const short = { ...miss, exact_rank: 4, distance: 0.93, nearer_than: null, nearer_than_distance: null };
    expect(indexMissSentence(short)).toBe(
      '"refunds.md" chunk 2 is the 4th nearest chunk (0.9300), but the vector index did not return it: an approximate-search miss.',
    );
    expect(indexMissSentence({ ...short, exact_rank: 1 })).toContain("chunk 2 is the nearest chunk (0.9300), but");
  });

  it("shows as many decimals as it takes for the two distances to differ", () => {
    expect(twoDistances(0.412341, 0.412344)).toEqual(["0.412341", "0.412344"]);
    expect(twoDistances(0.412341, 0.412349)).toEqual(["0.41234", "0.41235"]);
    expect(twoDistances(0.5, 0.25)).toEqual(["0.5000", "0.2500"]);
    expect(indexMissSentence({ ...miss, distance: 0.9058801, nearer_than_distance: 0.9058832 })).toContain("(0.905880 against 0.905883)");
    expect(twoDistances(0.90588011, 0.90588014)).toEqual(["0.9058801", "0.9058801"]); // 7 at most: float32 noise is not a difference
  });
});

describe("capped", () => {
  it("keeps the first few and counts the rest", () => {
    expect(capped([1, 2, 3, 4, 5], 3)).toEqual({ shown: [1, 2, 3], more: 2 });
    expect(capped([1, 2], 3)).toEqual({ shown: [1, 2], more: 0 });
  });
});
