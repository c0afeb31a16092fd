import { afterEach, describe, expect, it, vi } from "vitest";
import { buildDocxBomb, buildPdfBomb, zipOf, zlibRepeated } from "../../test/fixtures/extract/bombs";
import { buildDocx, buildPdf, rejection, utf8 } from "../../test/fixtures/extract/builders";
import { EXPANDED_BYTES_PER_CHAR } from "./limits";
import { ExtractPool, workerFile, type ExtractJob } from "./pool";
import { extractPool } from "./state";
import { extractText } from "./index";

// How much memory a bomb costs and how long it holds up the main thread are figures, printed by
// `node --import tsx scripts/bench/extract-limits.ts`; these tests show what refuses a bomb.

const MB = 1024 * 1024;

afterEach(() => {
  vi.restoreAllMocks();
});

/** What the process-wide extraction pool is given from here on, and what its workers answer. */
function watchWorkers() {
  const run = vi.spyOn(extractPool(), "run");
  return {
    replies: async () => Promise.all(run.mock.calls.map(async ([job], i) => ({ kind: job.kind, reply: await run.mock.results[i]!.value }))),
  };
}

const refusedInWorker = { ok: false, failure: "limit", code: "too_much_text" };

/**
 * A .docx whose directory declares `megabytes` MB for its document part, which holds a few
 * stored bytes that are not even XML: only a reader that believes the directory refuses it as
 * too much text; one that read the part would find it unreadable.
 */
function docxDeclaring(megabytes: number): Uint8Array {
  return zipOf([{ name: "word/document.xml", pieces: [{ bytes: utf8("not even XML") }], store: true, declaredSize: megabytes * MB }]);
}

/**
 * The archive with the DEFLATE stream of its last entry broken at the very end (an invalid
 * block where the final one was): a reader that inflates all of it fails on a damaged file, one
 * that stops at its budget never gets there.
 */
function withBrokenEnd(zip: Uint8Array): Uint8Array {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const directoryAt = view.getUint32(zip.length - 22 + 16, true);
  // zipOf ends each entry's stream with an empty final block, 0x03 0x00; 0x06 is a block of the reserved type.
  expect([...zip.subarray(directoryAt - 2, directoryAt)]).toEqual([0x03, 0x00]);
  const broken = new Uint8Array(zip);
  broken[directoryAt - 2] = 0x06;
  return broken;
}

/**
 * A one-page PDF that shows `text` once, followed in the same compressed content stream by
 * `megabytes` MB of blanks: whatever its expanded size, its text is tiny, so only the budget
 * on the expanded stream can refuse it.
 */
function pdfWithBlankStream(text: string, megabytes: number): Uint8Array {
  const stream = zlibRepeated([
    { bytes: utf8(`BT /F1 12 Tf 72 720 Td (${text}) Tj ET\n`) },
    { bytes: utf8(" ".repeat(MB)), times: megabytes },
  ]);
  const objects: (string | Uint8Array)[] = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>",
    stream,
  ];
  const parts: Buffer[] = [Buffer.from("%PDF-1.4\n")];
  const offsets: number[] = [];
  let length = parts[0]!.length;
  const push = (bytes: Uint8Array | string) => {
    const b = Buffer.from(bytes);
    parts.push(b);
    length += b.length;
  };
  objects.forEach((object, i) => {
    offsets.push(length);
    if (typeof object === "string") return push(`${i + 1} 0 obj\n${object}\nendobj\n`);
    push(`${i + 1} 0 obj\n<< /Length ${object.length} /Filter /FlateDecode >>\nstream\n`);
    push(object);
    push("\nendstream\nendobj\n");
  });
  const xref = offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("");
  push(
    `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`,
  );
  return new Uint8Array(Buffer.concat(parts));
}

describe("extractText: decompression bombs", () => {
  it("refuses a .docx whose directory declares hundreds of MB of XML, in the worker, before inflating it", async () => {
    const bytes = buildDocxBomb(400);
    expect(bytes.length).toBeLessThan(MB);
    const workers = watchWorkers();
    expect(await rejection(extractText("big.docx", bytes, { maxTextChars: 5_000_000 }), "too_much_text")).toBe(
      '"big.docx" expands to more than 5,000,000 characters of text, over the MAX_TEXT_CHARS limit; split it into smaller files.',
    );
    expect(await workers.replies()).toMatchObject([{ kind: "docx", reply: refusedInWorker }]);
    // The directory alone decides: a part that is not even XML is refused the same way.
    await rejection(extractText("declares.docx", docxDeclaring(400), { maxTextChars: 5_000_000 }), "too_much_text");
  });

  it("stops inflating a .docx whose directory lies about the size of its XML, at the budget", async () => {
    // 400 MB of XML declared as 4 KB; the budget is 20 bytes per allowed character (20 MB here).
    const bytes = withBrokenEnd(buildDocxBomb(400, 4096));
    const workers = watchWorkers();
    expect(await rejection(extractText("liar.docx", bytes, { maxTextChars: 1_000_000 }), "too_much_text")).toContain(
      "more than 1,000,000 characters",
    );
    expect(await workers.replies()).toMatchObject([{ kind: "docx", reply: refusedInWorker }]);
  });

  it("stops reading a PDF whose compressed content stream expands to hundreds of MB, whatever its text", async () => {
    const bytes = pdfWithBlankStream("Refunds within 14 days", 250);
    expect(bytes.length).toBeLessThan(MB);
    const workers = watchWorkers();
    expect(await rejection(extractText("bomb.pdf", bytes, { maxTextChars: 200_000 }), "too_much_text")).toBe(
      '"bomb.pdf" expands to more than 200,000 characters of text, over the MAX_TEXT_CHARS limit; split it into smaller files.',
    );
    expect(await workers.replies()).toMatchObject([{ kind: "pdf", reply: refusedInWorker }]);
    await rejection(extractText("text-bomb.pdf", buildPdfBomb(250), { maxTextChars: 200_000 }), "too_much_text");
    // The same kind of stream, within the limits, is read.
    await expect(extractText("ok.pdf", pdfWithBlankStream("Refunds within 14 days", 1), { maxTextChars: 200_000 })).resolves.toEqual({
      type: "pdf",
      text: "Refunds within 14 days",
      pageStarts: [0],
    });
  });

  it("are refused the same way by a worker with a heap of 32 MB, which does not run out of memory", async () => {
    const pool = new ExtractPool({ size: 1, memoryMb: 32, idleMs: 1_000, workerFile: workerFile() });
    const docx = (bytes: Uint8Array, maxChars: number): ExtractJob => ({
      kind: "docx",
      bytes,
      maxChars,
      maxXmlBytes: maxChars * EXPANDED_BYTES_PER_CHAR,
    });
    const pdf = (bytes: Uint8Array, maxChars: number): ExtractJob => ({
      kind: "pdf",
      bytes,
      maxChars,
      maxPages: 2_000,
      maxStreamBytes: maxChars * EXPANDED_BYTES_PER_CHAR,
    });
    const jobs = [
      docx(buildDocxBomb(400), 5_000_000),
      docx(withBrokenEnd(buildDocxBomb(400, 4096)), 1_000_000),
      pdf(pdfWithBlankStream("Refunds within 14 days", 250), 200_000),
      pdf(buildPdfBomb(250), 200_000),
    ];
    try {
      for (const job of jobs) expect(await pool.run(job, 60_000)).toMatchObject(refusedInWorker);
    } finally {
      await pool.close();
    }
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
