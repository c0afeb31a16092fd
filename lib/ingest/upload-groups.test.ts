import { describe, expect, it } from "vitest";
import { uploadGroups } from "./upload-groups";

const files = (...sizes: number[]) => sizes.map((size, i) => ({ name: `f${i}`, size }));
const names = (groups: { name: string }[][]) => groups.map((g) => g.map((f) => f.name));

describe("splitting an upload into requests", () => {
  it("keeps every file once, in order, with at most maxFiles per request", () => {
    const chosen = files(...Array.from({ length: 123 }, () => 1000));
    const groups = uploadGroups(chosen, 50, 100 * 1024 * 1024);
    expect(groups.map((g) => g.length)).toEqual([50, 50, 23]);
    expect(groups.flat().map((f) => f.name)).toEqual(chosen.map((f) => f.name));
  });

  it("starts a new request before the bytes pass the limit, and sends a file larger than it alone", () => {
    const MB = 1024 * 1024;
    const groups = uploadGroups(files(0.4 * MB, 0.4 * MB, 0.4 * MB, 3 * MB, 0.1 * MB), 50, MB);
    expect(names(groups)).toEqual([["f0", "f1"], ["f2"], ["f3"], ["f4"]]);
    for (const g of groups.filter((g) => g.length > 1)) expect(g.reduce((n, f) => n + f.size, 0)).toBeLessThan(MB);
  });

  it("makes no request for no files", () => {
    expect(uploadGroups([], 50, 1024)).toEqual([]);
  });
});
