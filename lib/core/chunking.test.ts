import { describe, expect, it } from "vitest";
import { chunkText, indexedText, type Chunk } from "./chunking";

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

/** A price list: a paragraph, a 40-row table (Markdown header and separator), a closing paragraph. */
function priceList(rows = 40): { text: string; header: string; rowLines: string[] } {
  const header = "| Plan | Price per month | Seats included | Support |";
  const rowLines = Array.from(
    { length: rows },
    (_, i) => `| Plan ${i + 1} tier | $${(i + 1) * 7} | ${(i + 1) * 5} seats | ${i % 2 ? "email" : "phone and email"} |`,
  );
  const text = `# Prices\n\nEvery plan is billed monthly. Pick the one that fits your team.\n\n${header}\n|---|---|---|---|\n${rowLines.join("\n")}\n\nPrices exclude VAT.`;
  return { text, header, rowLines };
}

/** Each line of the text that starts with a pipe, as [start, end) offsets. */
const tableLines = (text: string) => [...text.matchAll(/^\|.*$/gm)].map((m) => ({ start: m.index, end: m.index + m[0].length }));

describe("tables in boundary chunks", () => {
  it("give every chunk holding rows their header, never cut a row and start the overlap at a row", () => {
    const { text, header, rowLines } = priceList();
    const lines = tableLines(text);
    for (const [size, overlap] of [
      [200, 40],
      [160, 0],
      [300, 120],
      [120, 60],
    ] as const) {
      const chunks = checkBoundaryChunks(text, size, overlap);
      expect(chunks.length).toBeGreaterThan(5);
      for (const c of chunks) {
        // No boundary inside a row: a table line is either wholly in the chunk or wholly outside it.
        for (const l of lines) {
          const inside = c.start < l.end && l.start < c.end;
          if (inside) expect([c.start <= l.start, c.end >= l.end], `chunk ${c.index} cuts the line at ${l.start}`).toEqual([true, true]);
        }
        const holdsRows = rowLines.some((row) => c.text.includes(row));
        if (holdsRows && !c.text.includes(header)) expect(c.context).toBe(`${header}\n|---|---|---|---|`);
        if (c.text.includes(header) || !holdsRows) expect(c.context).toBeUndefined();
      }
      for (let i = 1; i < chunks.length; i++) {
        // The next chunk starts at the start of a line (a row) whenever it starts inside the table.
        const start = chunks[i].start;
        if (lines.some((l) => l.start <= start && start < l.end)) expect(text[start - 1], `chunk ${i} at ${start}`).toBe("\n");
      }
      if (overlap >= 60) expect(chunks.slice(1).some((c, i) => c.start < chunks[i].end)).toBe(true);
      // Every row is in some chunk, and with its header in its text or its context.
      for (const row of rowLines) expect(chunks.some((c) => c.text.includes(row) && (c.text.includes(header) || c.context))).toBe(true);
    }
  });

  it("index the header before the text and the questions after it, while the text stays the document's", () => {
    const { text, header } = priceList();
    const later = chunkText(text, 200, 40).find((c) => c.context)!;
    expect(later.text).toBe(text.slice(later.start, later.end));
    expect(later.text.startsWith("| Plan")).toBe(true);
    expect(indexedText({ ...later, questions: ["What does Plan 9 cost?"] })).toBe(
      `${header}\n|---|---|---|---|\n${later.text}\n\nWhat does Plan 9 cost?`,
    );
    expect(indexedText({ text: "Plain text." })).toBe("Plain text.");
  });

  it("take a header without a separator line, and cut inside a row only when the row alone is longer than the chunk", () => {
    const long = `| Enterprise | ${"custom terms negotiated per contract ".repeat(4).trim()} |`;
    const text = ["| Region | Uptime |", "| EU | 99.9% |", "| US | 99.5% |", long, "| APAC | 99.0% |"].join("\n");
    const chunks = checkBoundaryChunks(text, 60, 10);
    expect(chunks[0].text).toBe("| Region | Uptime |\n| EU | 99.9% |\n| US | 99.5% |");
    expect(chunks[0].context).toBeUndefined();
    // The long row is cut at words, each of its pieces with the header as context.
    const pieces = chunks.filter((c) => long.includes(c.text));
    expect(pieces.length).toBeGreaterThan(1);
    for (const c of chunks.slice(1)) expect(c.context).toBe("| Region | Uptime |");
    expect(chunks.at(-1)!.text.endsWith("| APAC | 99.0% |")).toBe(true);
  });

  it("leave fixed windows and text without tables as they were", () => {
    const { text } = priceList();
    expect(chunkText(text, 200, 40, "fixed").every((c) => c.context === undefined)).toBe(true);
    const plain = article(7, 20);
    expect(chunkText(plain, 200, 40).every((c) => !("context" in c))).toBe(true);
  });
});
