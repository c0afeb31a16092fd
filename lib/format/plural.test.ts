import { describe, expect, it } from "vitest";
import { plural } from "./plural";

describe("plural", () => {
  it("says one chunk, and any other count in the plural", () => {
    expect(plural(1, "chunk")).toBe("1 chunk");
    expect(plural(0, "chunk")).toBe("0 chunks");
    expect(plural(3, "chunk")).toBe("3 chunks");
  });

  it("groups thousands and takes an irregular plural", () => {
    expect(plural(12_500, "chunk")).toBe("12,500 chunks");
    expect(plural(2, "unanswerable pair", "unanswerable pairs")).toBe("2 unanswerable pairs");
    expect(plural(1, "query", "queries")).toBe("1 query");
    expect(plural(4, "query", "queries")).toBe("4 queries");
  });
});
