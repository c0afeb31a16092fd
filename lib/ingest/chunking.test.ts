import { describe, expect, it } from "vitest";
import { chunkText } from "./chunking";

describe("chunkText", () => {
  it("rejects an overlap that would stop the window from advancing", () => {
    expect(() => chunkText("abc", 10, 10)).toThrow(/smaller than the chunk size/);
    expect(() => chunkText("abc", 10, 12)).toThrow(RangeError);
    expect(() => chunkText("abc", 10, -1)).toThrow(/at least 0/);
    expect(() => chunkText("abc", 0, 0)).toThrow(RangeError);
    expect(() => chunkText("abc", 10.5, 1)).toThrow(/whole numbers/);
  });

  it("returns no chunk for empty text and one chunk for short text", () => {
    expect(chunkText("", 10, 2)).toEqual([]);
    expect(chunkText("short", 10, 2)).toEqual([{ index: 0, start: 0, end: 5, text: "short" }]);
  });

  it("covers the whole text with windows that overlap by exactly `overlap`", () => {
    const text = Array.from({ length: 2345 }, (_, i) => String.fromCharCode(97 + (i % 26))).join("");
    const chunks = chunkText(text, 800, 100);
    expect(chunks.map((c) => [c.start, c.end])).toEqual([
      [0, 800],
      [700, 1500],
      [1400, 2200],
      [2100, 2345],
    ]);
    for (const c of chunks) expect(c.text).toBe(text.slice(c.start, c.end));
    for (let i = 1; i < chunks.length; i++) {
      expect(chunks[i - 1].end - chunks[i].start).toBe(100);
      expect(chunks[i].text.slice(0, 100)).toBe(chunks[i - 1].text.slice(-100));
    }
    expect(chunks.at(-1)!.end).toBe(text.length);
    expect(chunks.map((c) => c.index)).toEqual([0, 1, 2, 3]);
  });

  it("does not add a tail chunk that the previous window already holds", () => {
    const chunks = chunkText("x".repeat(800), 800, 100);
    expect(chunks).toHaveLength(1);
    expect(chunkText("x".repeat(801), 800, 100).map((c) => [c.start, c.end])).toEqual([
      [0, 800],
      [700, 801],
    ]);
  });

  it("works with zero overlap", () => {
    expect(chunkText("abcdefg", 3, 0).map((c) => c.text)).toEqual(["abc", "def", "g"]);
  });
});
