import { monitorEventLoopDelay } from "node:perf_hooks";
import { describe, expect, it } from "vitest";
import { buildDocxBomb, buildPdfBomb, docxBombSize } from "./bomb-fixtures";
import { extractText } from "./index";
import { buildDocx, buildPdf, rejection, utf8 } from "./test-fixtures";

const MB = 1024 * 1024;

/** The peak RSS growth (worker threads included) and the longest main-thread stall while `promise` runs. */
async function measure(promise: Promise<unknown>) {
  const before = process.memoryUsage.rss();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  await promise.catch(() => {});
  delay.disable();
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage.rss());
  return { rssGrowth: peak - before, maxLoopDelayMs: delay.max / 1e6 };
}

describe("extractText: decompression bombs", () => {
  it("refuses a .docx whose directory declares hundreds of MB of XML, before inflating it", async () => {
    const bytes = buildDocxBomb(400);
    expect(bytes.length).toBeLessThan(MB);
    const result = extractText("big.docx", bytes, { maxTextChars: 5_000_000 });
    const { rssGrowth, maxLoopDelayMs } = await measure(result);

    const message = await rejection(result, "too_much_text");
    expect(message).toBe(
      '"big.docx" expands to more than 5,000,000 characters of text, over the MAX_TEXT_CHARS limit; split it into smaller files.',
    );
    expect(rssGrowth).toBeLessThan(docxBombSize(400) / 4);
    expect(maxLoopDelayMs).toBeLessThan(200);
  });

  it("stops inflating a .docx whose directory lies about the size of its XML", async () => {
    const bytes = buildDocxBomb(400, 4096);
    const result = extractText("liar.docx", bytes, { maxTextChars: 1_000_000 });
    const { rssGrowth, maxLoopDelayMs } = await measure(result);

    expect(await rejection(result, "too_much_text")).toContain("more than 1,000,000 characters");
    expect(rssGrowth).toBeLessThan(docxBombSize(400) / 4);
    expect(maxLoopDelayMs).toBeLessThan(200);
  });

  it("stops reading a PDF whose compressed content stream expands to hundreds of MB", async () => {
    const bytes = buildPdfBomb(250);
    expect(bytes.length).toBeLessThan(MB);
    const result = extractText("bomb.pdf", bytes, { maxTextChars: 200_000 });
    const { rssGrowth, maxLoopDelayMs } = await measure(result);

    expect(await rejection(result, "too_much_text")).toBe(
      '"bomb.pdf" expands to more than 200,000 characters of text, over the MAX_TEXT_CHARS limit; split it into smaller files.',
    );
    expect(rssGrowth).toBeLessThan(100 * MB);
    expect(maxLoopDelayMs).toBeLessThan(200);
    // The same kind of stream, within the limits, is read.
    const { text } = await extractText("ok.pdf", buildPdfBomb(1), { maxTextChars: 2_000_000 });
    expect(text).toMatch(/^a{80}/);
  });
});

describe("extractText: text limit", () => {
  it("refuses a PDF once its pages pass the limit, without reading the rest", async () => {
    const pages = Array.from({ length: 50 }, (_, i) => `Page ${i + 1} ${"word ".repeat(15)}`);
    const message = await rejection(extractText("long.pdf", buildPdf(pages), { maxTextChars: 1_000 }), "too_much_text");
    expect(message).toContain('"long.pdf" expands to more than 1,000 characters of text');
  });

  it("refuses a .docx with more text than the limit", async () => {
    const bytes = await buildDocx(Array.from({ length: 40 }, () => "Refunds are issued within 14 days."));
    await rejection(extractText("policy.docx", bytes, { maxTextChars: 500 }), "too_much_text");
    await expect(extractText("policy.docx", bytes, { maxTextChars: 5_000 })).resolves.toMatchObject({ type: "docx" });
  });

  it("refuses text files by their size before decoding and by their length after", async () => {
    const ascii = utf8("a".repeat(4_000));
    expect(await rejection(extractText("notes.txt", ascii, { maxTextChars: 1_000 }), "too_much_text")).toBe(
      '"notes.txt" has more than 1,000 characters of text, over the MAX_TEXT_CHARS limit; split it into smaller files.',
    );
    await rejection(extractText("notes.md", utf8("a".repeat(1_001)), { maxTextChars: 1_000 }), "too_much_text");
    // Three bytes per character in UTF-8: 3,000 bytes, yet only 1,000 characters.
    await expect(extractText("notes.txt", utf8("€".repeat(1_000)), { maxTextChars: 1_000 })).resolves.toMatchObject({
      type: "txt",
    });
  });

  it("refuses HTML by its visible text, small pages and large ones alike", async () => {
    const page = (n: number) => utf8(`<p>${"word ".repeat(n)}</p><script>${"x".repeat(400_000)}</script>`);
    await rejection(extractText("small.html", utf8(`<p>${"word ".repeat(300)}</p>`), { maxTextChars: 1_000 }), "too_much_text");
    await rejection(extractText("large.html", page(300), { maxTextChars: 1_000 }), "too_much_text");
    // Markup does not count: 400 KB of script around 500 characters of text is fine.
    await expect(extractText("large.html", page(100), { maxTextChars: 1_000 })).resolves.toMatchObject({ type: "html" });
  });
});

describe("extractText: page limit", () => {
  it("refuses a PDF with more pages than the limit, naming both", async () => {
    const bytes = buildPdf(Array.from({ length: 60 }, (_, i) => `Page ${i + 1}`));
    expect(await rejection(extractText("book.pdf", bytes, { maxPdfPages: 50 }), "too_many_pages")).toBe(
      '"book.pdf" has 60 pages, over the MAX_PDF_PAGES limit of 50; split it into smaller files.',
    );
    await expect(extractText("book.pdf", bytes, { maxPdfPages: 60 })).resolves.toMatchObject({ type: "pdf" });
  });
});
