import { describe, expect, it } from "vitest";
import { chunkText, type ChunkStrategy } from "../core/chunking";
import { chunkRangeProblem } from "./chunk-ranges";

const TEXTS = [
  "One short sentence.",
  "  Leading and trailing whitespace.  \n\n",
  Array.from({ length: 40 }, (_, i) => `## Part ${i}\n\nShipping takes ${i} days. Returns are free within 60 days of delivery.`).join(
    "\n\n",
  ),
  `${"x".repeat(1500)} a word after a very long one ${"y".repeat(700)}`,
  "word ".repeat(600),
];
const SETTINGS: [number, number][] = [
  [800, 100],
  [200, 20],
  [50, 0],
  [100, 90],
  [1, 0],
];

describe("chunkRangeProblem", () => {
  it("accepts every chunk list the chunker makes, at every strategy and setting", () => {
    for (const strategy of ["boundary", "fixed"] as ChunkStrategy[]) {
      for (const [size, overlap] of SETTINGS) {
        for (const text of TEXTS) {
          expect(
            chunkRangeProblem(text, chunkText(text, size, overlap, strategy), size, overlap, strategy),
            `${strategy} ${size}/${overlap}`,
          ).toBeNull();
        }
      }
    }
  });

  it("names what the chunker would never make", () => {
    const text = TEXTS[2];
    const chunks = chunkText(text, 200, 20, "boundary");
    const problem = (list: { start: number; end: number }[], strategy: ChunkStrategy = "boundary") =>
      chunkRangeProblem(text, list, 200, 20, strategy);
    expect(problem([{ start: 0, end: text.length }])).toBe(
      `chunk 0 (characters 0-${text.length}) is ${text.length.toLocaleString("en-US")} characters long, over its chunk size of 200.`,
    );
    expect(problem(Array.from({ length: text.length + 1 }, () => ({ start: 0, end: 10 })))).toMatch(
      /^it lists [\d,]+ chunks for a text of [\d,]+ characters/,
    );
    expect(problem([chunks[0], chunks[0], ...chunks.slice(1)])).toMatch(/^chunk 1 .* does not start and end after chunk 0/);
    expect(problem([chunks[0], { start: chunks[0].end - 21, end: chunks[0].end + 100 }])).toMatch(
      /^chunk 1 .* shares 21 characters with chunk 0, more than its overlap of 20\.$/,
    );
    expect(problem(chunks.slice(0, -1))).toMatch(/^characters \d+-\d+ of its text are in no chunk\.$/);
    expect(problem([{ start: 5, end: 5 }])).toBe(
      `chunk 0 (characters 5-5) is not a range inside its text of ${text.length.toLocaleString("en-US")} characters.`,
    );
    // Fixed windows have one right answer.
    const fixed = chunkText(text, 200, 20, "fixed");
    expect(problem(fixed.slice(1), "fixed")).toMatch(/fixed windows of 200 characters overlapping by 20 cut its text/);
    expect(problem([{ start: 1, end: 201 }, ...fixed.slice(1)], "fixed")).toBe(
      "chunk 0 (characters 1-201) is not the fixed window the chunker makes there (characters 0-200).",
    );
  });
});
