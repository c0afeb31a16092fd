import { describe, expect, it } from "vitest";
import { chunkText, embeddedText, indexedText } from "./chunking";

const HEADER = "| Plan | Price | Seats |";

describe("what a chunk is embedded by: table rows as column-value pairs", () => {
  it("names the cells of rows after the header the chunk carries as context, and leaves the header out", () => {
    const chunk = { text: "| Team | $20 | 10 |\n| Business | $45 | 25 |", context: HEADER };
    expect(embeddedText(chunk)).toBe("Plan: Team; Price: $20; Seats: 10\nPlan: Business; Price: $45; Seats: 25");
    // The keyword index keeps the pipe rows under their header.
    expect(indexedText(chunk)).toBe(`${HEADER}\n${chunk.text}`);
    // A Markdown header's separator comes with it in the context, and goes with it.
    expect(embeddedText({ ...chunk, context: `${HEADER}\n|---|:---:|--:|` })).toBe(embeddedText(chunk));
  });

  it("takes the header of a table that starts inside the chunk, with or without a separator line, and keeps the text around it", () => {
    const around = (table: string) => `Our plans:\n\n${table}\n\nPrices exclude VAT.`;
    const pairs = around("Plan: Team; Price: $20; Seats: 10\nPlan: Pro; Price: $35; Seats: 20");
    expect(embeddedText({ text: around(`${HEADER}\n| Team | $20 | 10 |\n| Pro | $35 | 20 |`) })).toBe(pairs);
    expect(embeddedText({ text: around(`${HEADER}\n|---|---|---|\n| Team | $20 | 10 |\n| Pro | $35 | 20 |`) })).toBe(pairs);
    // Indented as a Markdown list may indent it, and a second table under its own header.
    expect(embeddedText({ text: `  ${HEADER}\n  | Team | $20 | 10 |\nThen:\n| Region | Uptime |\n| EU | 99.9% |` })).toBe(
      "Plan: Team; Price: $20; Seats: 10\nThen:\nRegion: EU; Uptime: 99.9%",
    );
  });

  it("reads a pipe escaped in a cell back, leaves empty cells out and keeps extra cells without a name", () => {
    expect(embeddedText({ text: "| Team | $20 \\| month | 10 |", context: HEADER })).toBe("Plan: Team; Price: $20 | month; Seats: 10");
    expect(embeddedText({ text: "| Free |  | 1 |\n| Trial | $0 |", context: HEADER })).toBe("Plan: Free; Seats: 1\nPlan: Trial; Price: $0");
    expect(embeddedText({ text: "| Max | $90 | 50 | on request |", context: HEADER })).toBe("Plan: Max; Price: $90; Seats: 50; on request");
    // An unnamed column (a matrix's row labels) gives its cells alone.
    expect(embeddedText({ text: "|  | Q1 | Q2 |\n| Revenue | 10 | 12 |" })).toBe("Revenue; Q1: 10; Q2: 12");
  });

  it("keeps the header of a row the chunker cut off, and the rows of a table whose header it cannot know", () => {
    // A row longer than the chunk is cut at words: its piece stays, and so does the header naming the rest.
    expect(embeddedText({ text: "| Team | $20 | 10 |\n| Enterprise | custom terms", context: HEADER })).toBe(
      `${HEADER}\nPlan: Team; Price: $20; Seats: 10\n| Enterprise | custom terms`,
    );
    expect(embeddedText({ text: "terms agreed | 500 |\n| Team | $20 | 10 |", context: HEADER })).toBe(
      `${HEADER}\nterms agreed | 500 |\nPlan: Team; Price: $20; Seats: 10`,
    );
    // Without a context, rows after the end of a row are not taken for a header and its rows.
    const tail = "terms agreed | 500 |\n| Team | $20 | 10 |\n| Pro | $35 | 20 |";
    expect(embeddedText({ text: tail })).toBe(tail);
  });

  it("appends the questions after the rows, as the indexed text does", () => {
    const chunk = { text: "| Team | $20 | 10 |", context: HEADER, questions: ["What does Team cost?", "How many seats?"] };
    expect(embeddedText(chunk)).toBe("Plan: Team; Price: $20; Seats: 10\n\nWhat does Team cost?\nHow many seats?");
  });

  it("leaves text without a table byte for byte as the indexed text, so such chunks embed as they always have", () => {
    const texts = [
      "Plain text.",
      "Refunds reach the card in five days.\n\nUse `a || b` or grep a | sort to filter.\r\nDone.  ",
      "```\ngrep a | sort\n| not | a table |\n```",
      "| A line alone | with pipes |",
      `${HEADER}\n|---|---|---|`,
      "Region | Uptime\n--- | ---\nEU | 99.9%",
      "\n\n  | one |\n\n| two |\n",
      "",
    ];
    for (const text of texts) {
      expect(embeddedText({ text })).toBe(text);
      expect(embeddedText({ text, questions: ["Why?"] })).toBe(indexedText({ text, questions: ["Why?"] }));
    }
    // A chunk whose context names no row of its text (an edit took them out) keeps it before the text.
    expect(embeddedText({ text: "Rewritten by hand.", context: HEADER })).toBe(`${HEADER}\nRewritten by hand.`);
    const prose = Array.from({ length: 60 }, (_, i) => `Step ${i}: open the settings, pick a plan | or not, and save.`).join("\n");
    for (const c of chunkText(prose, 300, 50)) expect(embeddedText(c)).toBe(c.text);
  });

  it("gives every row of a chunked table its column names, whichever chunk holds it", () => {
    const rows = Array.from({ length: 30 }, (_, i) => `| Plan ${i} | $${i * 3} | ${i + 1} |`);
    const text = `# Prices\n\nPick a plan.\n\n${HEADER}\n|---|---|---|\n${rows.join("\n")}\n\nPrices exclude VAT.`;
    for (const [size, overlap] of [
      [120, 30],
      [200, 0],
      [400, 100],
    ] as const) {
      const embedded = chunkText(text, size, overlap).map(embeddedText);
      for (const e of embedded) expect(e).not.toMatch(/^\|/m);
      rows.forEach((_, i) =>
        expect(embedded.some((e) => e.split("\n").includes(`Plan: Plan ${i}; Price: $${i * 3}; Seats: ${i + 1}`))).toBe(true),
      );
    }
  });
});
