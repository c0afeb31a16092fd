import { describe, expect, it } from "vitest";
import { compareRuns } from "./compare";

const o = (query: string, rank: number | null, missing = false) => ({ query, expected: `${query}.md`, rank, best_distance: rank && rank / 10, missing });

describe("comparing two runs at k", () => {
  const base = [o("lost", 1), o("won", 9), o("slipped", 1), o("climbed", 8), o("same", 2), o("gone", 1), o("removed", 1), o("lost-far", 2)];
  const head = [o("lost", 4), o("won", 2), o("slipped", 2), o("climbed", 5), o("same", 2), o("gone", null, true), o("added", 1), o("lost-far", null)];
  const cmp = compareRuns(base, head, 3);

  it("calls a hit that became a miss a regression and a miss that became a hit a fix", () => {
    const change = Object.fromEntries(cmp.rows.map((r) => [r.query, r.change]));
    expect(change).toEqual({
      lost: "regression",
      "lost-far": "regression",
      won: "fix",
      slipped: "worse",
      climbed: "better",
      same: "same",
      gone: "missing",
      added: "new",
      removed: "dropped",
    });
    expect(cmp.counts).toMatchObject({ regression: 2, fix: 1, worse: 1, better: 1, same: 1, missing: 1, new: 1, dropped: 1 });
  });

  it("lists regressions first, the biggest fall first, then fixes", () => {
    expect(cmp.rows.slice(0, 3).map((r) => r.query)).toEqual(["lost-far", "lost", "won"]);
    expect(cmp.rows.at(-1)!.query).toBe("same");
  });
});
