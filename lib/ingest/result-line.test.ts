import { describe, expect, it } from "vitest";
import { resultLine } from "./result-line";

describe("resultLine", () => {
  it("says an indexed file's chunk count once, in the singular for one chunk", () => {
    expect(resultLine({ filename: "refunds.md", outcome: "indexed", message: "Indexed 3 chunks.", chunk_count: 3 })).toBe(
      "refunds.md: indexed (3 chunks)",
    );
    expect(resultLine({ filename: "faq.md", outcome: "indexed", message: "Indexed 1 chunk.", chunk_count: 1 })).toBe(
      "faq.md: indexed (1 chunk)",
    );
    expect(
      resultLine({ filename: "faq.md", outcome: "replaced", message: "Replaced the previous version: 1 chunk indexed.", chunk_count: 1 }),
    ).toBe("faq.md: replaced the previous version (1 chunk)");
  });

  it("keeps the reason of a rejected or failed file and names the copy a duplicate matches", () => {
    expect(resultLine({ filename: "photo.txt", outcome: "rejected", message: "This is a PNG image, not text.", chunk_count: 0 })).toBe(
      "photo.txt: rejected — This is a PNG image, not text.",
    );
    expect(resultLine({ filename: "a.md", outcome: "failed", message: "The embedding provider failed: quota.", chunk_count: 0 })).toBe(
      "a.md: failed — The embedding provider failed: quota.",
    );
    expect(
      resultLine({
        filename: "copy.md",
        outcome: "duplicate",
        message: 'Already present as "a.md" (document 4); nothing was changed.',
        chunk_count: 2,
      }),
    ).toBe('copy.md: already present as "a.md" (document 4); nothing was changed.');
  });
});
