import { describe, expect, it } from "vitest";
import { compareRuns, inTimeOrder } from "./compare";

const o = (query: string, rank: number | null, missing = false) => ({
  query,
  expected: `${query}.md`,
  rank,
  best_distance: rank && rank / 10,
  missing,
});

describe("comparing two runs at k", () => {
  const base = [o("lost", 1), o("won", 9), o("slipped", 1), o("climbed", 8), o("same", 2), o("gone", 1), o("removed", 1), o("lost-far", 2)];
  const head = [
    o("lost", 4),
    o("won", 2),
    o("slipped", 2),
    o("climbed", 5),
    o("same", 2),
    o("gone", null, true),
    o("added", 1),
    o("lost-far", null),
  ];
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

describe("putting the two runs of a comparison in time order", () => {
  const older = { id: 3, created_at: "2026-11-30T09:00:00.000Z" };
  const newer = { id: 5, created_at: "2026-11-30T10:30:00.000Z" };

  it("takes the runs as picked when the earlier one is first", () => {
    expect(inTimeOrder(older, newer)).toEqual({ earlier: older, later: newer, swapped: false });
  });

  it("swaps an earlier run picked newer than the later one, so an added pair is new, not removed", () => {
    const { earlier, later, swapped } = inTimeOrder(newer, older);
    expect([earlier.id, later.id, swapped]).toEqual([3, 5, true]);
    const cmp = compareRuns([o("kept", 1)], [o("kept", 1), o("added", 2)], 3);
    expect(cmp.counts).toMatchObject({ new: 1, dropped: 0 });
  });

  it("orders runs started in the same millisecond by id", () => {
    const twin = { id: 4, created_at: older.created_at };
    expect(inTimeOrder(twin, older)).toMatchObject({ earlier: older, later: twin, swapped: true });
  });
});
