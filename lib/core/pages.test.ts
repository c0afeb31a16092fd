import { describe, expect, it } from "vitest";
import { collapseBlankLines, normalizeLineEndings } from "../extract/text";
import { joinPages, pageLabel, pagesOf, parsePageStarts, validPageStarts } from "./pages";

describe("joinPages", () => {
  it("joins pages with a blank line and records where each starts", () => {
    const { text, starts } = joinPages(["First page.", "Second page.", "Third."]);
    expect(text).toBe("First page.\n\nSecond page.\n\nThird.");
    expect(starts).toEqual([0, 13, 27]);
    starts.forEach((s, i) => expect(text.slice(s)).toMatch(["First", "Second", "Third"][i]));
  });

  it("places a page without text where the next page's text starts, so no character lies on it", () => {
    const { text, starts } = joinPages(["", "A page.", "   \n", "", "Last page."]);
    expect(text).toBe("A page.\n\nLast page.");
    expect(starts).toEqual([0, 0, 9, 9, 9]);
    expect(pagesOf(starts, 0, 7)).toEqual({ first: 2, last: 2 });
    expect(pagesOf(starts, 9, 19)).toEqual({ first: 5, last: 5 });
    // The blank line between two pages belongs to the page before it.
    expect(pagesOf(starts, 3, 8)).toEqual({ first: 2, last: 2 });
  });

  it("tidies each page so the text's own tidying after extraction moves no page start", () => {
    const pages = ["\n\n  Intro line  \r\nmore\n\n\n\n", "\n \nBody  \n\n\n\ntext   ", "Tail\n\n"];
    const { text, starts } = joinPages(pages);
    expect(collapseBlankLines(normalizeLineEndings(text)).trimEnd()).toBe(text);
    expect(text.slice(starts[1]).startsWith("Body")).toBe(true);
    expect(text.slice(starts[2])).toBe("Tail");
    expect(validPageStarts(starts, text.length)).toBe(true);
  });
});

describe("pagesOf", () => {
  const starts = [0, 100, 200];

  it("gives the first and last page a chunk's characters lie on", () => {
    expect(pagesOf(starts, 0, 100)).toEqual({ first: 1, last: 1 });
    expect(pagesOf(starts, 0, 101)).toEqual({ first: 1, last: 2 });
    expect(pagesOf(starts, 150, 250)).toEqual({ first: 2, last: 3 });
    expect(pagesOf(starts, 99, 201)).toEqual({ first: 1, last: 3 });
    expect(pagesOf(starts, 250, 260)).toEqual({ first: 3, last: 3 });
  });

  it("gives none without pages, or for a chunk that holds no character of the document (written by hand)", () => {
    expect(pagesOf(null, 0, 10)).toBeNull();
    expect(pagesOf([], 0, 10)).toBeNull();
    expect(pagesOf(starts, 120, 120)).toBeNull();
  });

  it("labels one page and a range", () => {
    expect(pageLabel({ first: 3, last: 3 })).toBe("p. 3");
    expect(pageLabel({ first: 3, last: 4 })).toBe("pp. 3–4");
  });
});

describe("stored page starts", () => {
  it("reads back only an array of offsets", () => {
    expect(parsePageStarts("[0,12,40]")).toEqual([0, 12, 40]);
    for (const bad of [null, "", "{}", "[]", "[0,-1]", "[0.5]", "not json"]) expect(parsePageStarts(bad)).toBeNull();
  });

  it("checks that starts can belong to a text: from 0, never going back, within it", () => {
    expect(validPageStarts([0, 10, 10, 30], 40)).toBe(true);
    expect(validPageStarts([1, 10], 40)).toBe(false);
    expect(validPageStarts([0, 20, 10], 40)).toBe(false);
    expect(validPageStarts([0, 500], 40)).toBe(false);
    expect(validPageStarts([], 40)).toBe(false);
  });
});
