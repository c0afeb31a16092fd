import { describe, expect, it } from "vitest";
import { chunkText, type Chunk } from "./chunking";

describe("chunkText settings", () => {
  it("rejects an overlap that would stop the window from advancing, for both strategies", () => {
    for (const strategy of ["fixed", "boundary"] as const) {
      expect(() => chunkText("abc", 10, 10, strategy)).toThrow(/smaller than the chunk size/);
      expect(() => chunkText("abc", 10, 12, strategy)).toThrow(RangeError);
      expect(() => chunkText("abc", 10, -1, strategy)).toThrow(/at least 0/);
      expect(() => chunkText("abc", 0, 0, strategy)).toThrow(RangeError);
      expect(() => chunkText("abc", 10.5, 1, strategy)).toThrow(/whole numbers/);
    }
  });

  it("cuts at boundaries unless told otherwise", () => {
    const text = "Refunds reach the card in five days. Gift cards are not refundable at all.";
    expect(chunkText(text, 40, 0).map((c) => c.text)).toEqual([
      "Refunds reach the card in five days.",
      "Gift cards are not refundable at all.",
    ]);
    expect(chunkText(text, 40, 0, "fixed")[0].text).toBe("Refunds reach the card in five days. Gif");
  });
});

describe("fixed windows", () => {
  it("returns no chunk for empty text and one chunk for short text", () => {
    expect(chunkText("", 10, 2, "fixed")).toEqual([]);
    expect(chunkText("short", 10, 2, "fixed")).toEqual([{ index: 0, start: 0, end: 5, text: "short" }]);
  });

  it("covers the whole text with windows that overlap by exactly `overlap`", () => {
    const text = Array.from({ length: 2345 }, (_, i) => String.fromCharCode(97 + (i % 26))).join("");
    const chunks = chunkText(text, 800, 100, "fixed");
    expect(chunks.map((c) => [c.start, c.end])).toEqual([
      [0, 800],
      [700, 1500],
      [1400, 2200],
      [2100, 2345],
    ]);
    for (const c of chunks) expect(c.text).toBe(text.slice(c.start, c.end));
    for (let i = 1; i < chunks.length; i++) {
      expect(chunks[i - 1].end - chunks[i].start).toBe(100);
    }
    expect(chunks.map((c) => c.index)).toEqual([0, 1, 2, 3]);
  });

  it("does not add a tail chunk that the previous window already holds", () => {
    expect(chunkText("x".repeat(800), 800, 100, "fixed")).toHaveLength(1);
    expect(chunkText("x".repeat(801), 800, 100, "fixed").map((c) => [c.start, c.end])).toEqual([
      [0, 800],
      [700, 801],
    ]);
    expect(chunkText("abcdefg", 3, 0, "fixed").map((c) => c.text)).toEqual(["abc", "def", "g"]);
  });
});

const isSpace = (c: string | undefined) => c !== undefined && /\s/.test(c);
/** Length of the whitespace-free run (word) that contains position i. */
function wordLengthAt(text: string, i: number): number {
  let a = i;
  let b = i;
  while (a > 0 && !isSpace(text[a - 1])) a--;
  while (b < text.length && !isSpace(text[b])) b++;
  return b - a;
}
const insideWord = (text: string, p: number) => p > 0 && p < text.length && !isSpace(text[p - 1]) && !isSpace(text[p]);

/** Every promise the boundary strategy makes, checked on one text. */
function checkBoundaryChunks(text: string, size: number, overlap: number): Chunk[] {
  const chunks = chunkText(text, size, overlap, "boundary");
  const covered = new Uint8Array(text.length);
  chunks.forEach((c, i) => {
    expect(c.index).toBe(i);
    expect(c.text).toBe(text.slice(c.start, c.end));
    expect(c.end - c.start).toBeGreaterThan(0);
    expect(c.end - c.start).toBeLessThanOrEqual(size);
    // Starts and ends at a word, unless cut inside a word longer than size.
    for (const p of [c.start, c.end]) if (insideWord(text, p)) expect(wordLengthAt(text, p)).toBeGreaterThan(size);
    expect(isSpace(c.text[0])).toBe(false);
    expect(isSpace(c.text.at(-1))).toBe(false);
    if (i > 0) {
      const prev = chunks[i - 1];
      expect(c.start).toBeGreaterThan(prev.start);
      expect(c.end).toBeGreaterThan(prev.end);
      expect(prev.end - c.start).toBeLessThanOrEqual(overlap);
    }
    covered.fill(1, c.start, c.end);
  });
  // Together they hold the whole text: only whitespace between two chunks is left out.
  for (let i = 0; i < text.length; i++) if (!covered[i]) expect(isSpace(text[i]), `character ${i} ${JSON.stringify(text[i])}`).toBe(true);
  return chunks;
}

/** A deterministic pseudo-random article: headings, paragraphs, sentences, lists, long tokens. */
function article(seed: number, paragraphs: number): string {
  let s = seed;
  const rand = () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const words = [
    "refund",
    "the",
    "card",
    "gift",
    "account",
    "within",
    "days",
    "support",
    "order",
    "a",
    "is",
    "of",
    "ticket",
    "premium",
    "e.g.",
    "SKU-4411-B",
    "hours,",
  ];
  const sentence = () => {
    const n = 3 + Math.floor(rand() * 14);
    const w = Array.from({ length: n }, () => words[Math.floor(rand() * words.length)]);
    if (rand() < 0.03) w.push("x".repeat(20 + Math.floor(rand() * 200))); // a token longer than some sizes
    return w.join(" ").replace(/^./, (c) => c.toUpperCase()) + (rand() < 0.8 ? "." : "?");
  };
  const blocks: string[] = [];
  for (let p = 0; p < paragraphs; p++) {
    const r = rand();
    if (r < 0.15) blocks.push(`${"#".repeat(1 + Math.floor(rand() * 3))} ${sentence().slice(0, -1)}`);
    else if (r < 0.3) blocks.push(Array.from({ length: 2 + Math.floor(rand() * 4) }, () => `- ${sentence()}`).join("\n"));
    else blocks.push(Array.from({ length: 1 + Math.floor(rand() * 6) }, sentence).join(rand() < 0.2 ? "\n" : " "));
  }
  return (rand() < 0.5 ? "  \n" : "") + blocks.join(rand() < 0.5 ? "\n\n" : "\n\n\n") + (rand() < 0.5 ? "\n" : "");
}

describe("boundary-aware chunks", () => {
  it("keep their promises on many generated articles and settings", () => {
    const settings: [number, number][] = [
      [800, 100],
      [400, 0],
      [1200, 100],
      [200, 50],
      [120, 119],
      [60, 10],
      [30, 0],
    ];
    for (let seed = 1; seed <= 40; seed++) {
      const text = article(seed, 5 + (seed % 25));
      for (const [size, overlap] of settings) checkBoundaryChunks(text, size, overlap);
    }
  });

  it("prefer a paragraph or heading to a sentence, a sentence to a line, a line to a word", () => {
    const para = "First paragraph about refunds. It has two sentences.";
    const text = `${para}\n\n## Gift cards\nGift cards cannot be refunded.`;
    expect(checkBoundaryChunks(text, para.length + 20, 0).map((c) => c.text)).toEqual([
      para,
      "## Gift cards\nGift cards cannot be refunded.",
    ]);
    // A heading on the next line starts a section even without a blank line.
    expect(chunkText("Intro line one.\n# Heading\nBody text here.", 30, 0).map((c) => c.text)).toEqual([
      "Intro line one.",
      "# Heading\nBody text here.",
    ]);
    expect(chunkText("One sentence here. And then some more words", 30, 0).map((c) => c.text)).toEqual([
      "One sentence here.",
      "And then some more words",
    ]);
    expect(chunkText("a line without stop\nand more words after it", 30, 0).map((c) => c.text)).toEqual([
      "a line without stop",
      "and more words after it",
    ]);
    expect(chunkText("words only and no stop at all in sight", 20, 0).map((c) => c.text)).toEqual([
      "words only and no",
      "stop at all in sight",
    ]);
  });

  it("keep chunks full rather than ending at an early paragraph", () => {
    const text = `Short.\n\n${"This sentence goes on. ".repeat(10).trim()}`;
    const [first] = checkBoundaryChunks(text, 100, 0);
    expect(first.text.length).toBeGreaterThan(50);
    expect(first.text.endsWith(".")).toBe(true);
  });

  it("carry the overlap back at a word start, never more than `overlap` characters", () => {
    const text = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau";
    const chunks = checkBoundaryChunks(text, 40, 12);
    for (let i = 1; i < chunks.length; i++) {
      const shared = chunks[i - 1].end - chunks[i].start;
      expect(shared).toBeGreaterThan(0);
      expect(text.slice(chunks[i].start, chunks[i - 1].end)).toMatch(/^\S.*\S$/);
    }
  });

  it("cut inside a word only when it is longer than size", () => {
    const long = "x".repeat(95);
    const text = `Start here. ${long} end of text.`;
    const chunks = checkBoundaryChunks(text, 40, 10);
    expect(chunks[0].text).toBe("Start here.");
    expect(chunks.some((c) => c.text === "x".repeat(40))).toBe(true);
    expect(chunks.at(-1)!.text.endsWith("end of text.")).toBe(true);
    expect(checkBoundaryChunks(long, 40, 0).map((c) => c.text.length)).toEqual([40, 40, 15]);
  });

  it("return no chunk for empty or blank text and one trimmed chunk for short text", () => {
    expect(chunkText("", 10, 2)).toEqual([]);
    expect(chunkText(" \n\t ", 10, 2)).toEqual([]);
    expect(chunkText("  short \n", 10, 2)).toEqual([{ index: 0, start: 2, end: 7, text: "short" }]);
  });
});
