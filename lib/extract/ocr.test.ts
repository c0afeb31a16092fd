import { afterEach, describe, expect, it, vi } from "vitest";
import { rejection } from "../../test/fixtures/extract/builders";
import {
  SCANNED_ARTICLE,
  SETTINGS_SCREEN,
  buildImagePdf,
  drawBlank,
  drawScannedPage,
  drawScreenshot,
  pngHeader,
  scannedPdfPage,
  wordRecall,
} from "../../test/fixtures/extract/images";
import { languagesProblem } from "./ocr-languages.mjs";
import { extractPool } from "./state";
import { extractText, ocrSummary } from "./index";

// Every OCR setting given, so the tests do not depend on the environment's.
const OCR = { maxImagePixels: 40_000_000, ocrLanguages: "eng", ocrMinConfidence: 40, ocrMaxPages: 50 };

afterEach(() => {
  vi.restoreAllMocks();
});

const screen = drawScreenshot(SETTINGS_SCREEN);

describe("extractText: images, read by OCR", () => {
  it.each([
    ["settings.png", "png", screen.png],
    ["settings.jpg", "jpeg", screen.jpeg],
    ["settings.webp", "webp", screen.webp],
  ] as const)("reads the words of a screenshot (%s) and records its confidence", async (name, type, bytes) => {
    const read = await extractText(name, bytes, OCR);
    expect(read.type).toBe(type);
    expect(wordRecall(SETTINGS_SCREEN.join("\n"), read.text)).toBeGreaterThanOrEqual(0.95);
    expect(read.ocr).toEqual({ image: { confidence: expect.any(Number) } });
    const { confidence } = (read.ocr as { image: { confidence: number } }).image;
    expect(confidence).toBeGreaterThanOrEqual(OCR.ocrMinConfidence);
    expect(confidence).toBeLessThanOrEqual(100);
  });

  it("names an image by its content, whatever image extension it has", async () => {
    await expect(extractText("screen.png", screen.jpeg, OCR)).resolves.toMatchObject({ type: "jpeg" });
  });

  it("refuses an image bomb from its header, before anything decodes it, naming its size and the limit", async () => {
    const bomb = pngHeader(100_000, 100_000);
    expect(bomb.length).toBeLessThan(100);
    const run = vi.spyOn(extractPool(), "run");
    expect(await rejection(extractText("bomb.png", bomb, OCR), "too_many_pixels")).toBe(
      '"bomb.png" is 100,000 × 100,000 pixels (10,000 megapixels), over the MAX_IMAGE_PIXELS limit of 40 megapixels; ' +
        "scale it down and upload it again.",
    );
    expect(run).not.toHaveBeenCalled();
    // The limit is the setting's: the same screenshot is refused under a lower one.
    expect(await rejection(extractText("settings.png", screen.png, { ...OCR, maxImagePixels: 100_000 }), "too_many_pixels")).toContain(
      `${screen.width} × ${screen.height} pixels`,
    );
  });

  it("rejects an image in which OCR finds no text, with its confidence", async () => {
    expect(await rejection(extractText("blank.png", drawBlank().png, OCR), "ocr_no_text")).toBe(
      '"blank.png": no text was found in the image (OCR confidence 0%).',
    );
  });

  it("takes text read below the confidence floor for noise", async () => {
    const message = await rejection(extractText("settings.png", screen.png, { ...OCR, ocrMinConfidence: 100 }), "ocr_no_text");
    expect(message).toMatch(/^"settings\.png": no text was found in the image \(OCR confidence \d+%\)\.$/);
  });

  it("refuses other content under an image name, and a damaged header", async () => {
    expect(await rejection(extractText("photo.png", new TextEncoder().encode("%PDF-1.4 not an image"), OCR), "type_mismatch")).toBe(
      '"photo.png" is not an image this app reads: it looks like a PDF file.',
    );
    await rejection(extractText("cut.png", pngHeader(640, 480).subarray(0, 20), OCR), "unreadable");
    // A header that holds, over image data cut short: the engine cannot decode it.
    expect(await rejection(extractText("cut.jpg", screen.jpeg.subarray(0, 3_000), OCR), "unreadable")).toBe(
      '"cut.jpg" could not be read as an image: its image data is damaged or truncated.',
    );
  });

  it("stops an OCR job past its deadline, as any reader, and reads the next image", async () => {
    // A dense page takes seconds to read anywhere; its deadline is a tenth of one.
    const page = drawScannedPage(Array.from({ length: 40 }, () => SCANNED_ARTICLE.join(" ").slice(0, 90)));
    const message = await rejection(extractText("dense.png", page.png, { ...OCR, timeoutMs: 100 }), "extract_timeout");
    expect(message).toContain('"dense.png" took too long to read (over 0.1 seconds, the EXTRACT_TIMEOUT_MS limit)');
    await expect(extractText("settings.png", screen.png, OCR)).resolves.toMatchObject({ type: "png" });
  });

  it("needs each language's data package, and names the one missing", async () => {
    expect(languagesProblem("eng")).toBeNull();
    expect(languagesProblem("eng+xyz")).toBe(
      'OCR_LANGUAGES is "eng+xyz", but @tesseract.js-data/xyz is not installed: run npm install @tesseract.js-data/xyz, or leave the language out.',
    );
    await expect(extractText("settings.png", screen.png, { ...OCR, ocrLanguages: "eng+xyz" })).rejects.toThrow(
      /OCR needs @tesseract\.js-data\/xyz, which is not installed on the server \(OCR_LANGUAGES\)/,
    );
  });
});

describe("extractText: PDF pages without a text layer", () => {
  it("reads an image-only PDF by OCR and records the page and its confidence", async () => {
    const read = await extractText("scan.pdf", buildImagePdf([scannedPdfPage(SCANNED_ARTICLE)]), OCR);
    expect(wordRecall(SCANNED_ARTICLE.join("\n"), read.text)).toBeGreaterThanOrEqual(0.95);
    expect(read.ocr).toEqual({ pages: [{ page: 1, confidence: expect.any(Number) }] });
    expect(ocrSummary(read.ocr!)).toMatch(/^Read by OCR: page 1 \(confidence \d+%\)$/);
  });

  it("reads a PDF mixing text and scanned pages page by page, in page order", async () => {
    const first = "Invoices are issued on the first day of each billing period.";
    const last = "Contact the billing team from the help centre for anything else.";
    const pdf = buildImagePdf([{ text: first }, scannedPdfPage(SCANNED_ARTICLE), { text: last }]);
    const run = vi.spyOn(extractPool(), "run");
    const read = await extractText("mixed.pdf", pdf, OCR);
    // One job reads the text layers; one OCR job reads the scanned page alone.
    expect(run.mock.calls.map(([job]) => (job.kind === "ocr" && job.source === "pdf" ? `ocr page ${job.page}` : job.kind))).toEqual([
      "pdf",
      "ocr page 2",
    ]);
    const [head, ...rest] = read.text.split("\n\n");
    expect(head).toBe(first);
    expect(rest.at(-1)).toBe(last);
    expect(wordRecall(SCANNED_ARTICLE.join("\n"), rest.slice(0, -1).join("\n"))).toBeGreaterThanOrEqual(0.95);
    expect(read.ocr).toEqual({ pages: [{ page: 2, confidence: expect.any(Number) }] });
  });

  it("rejects a scanned PDF in which OCR finds no text", async () => {
    const { jpeg, width, height } = drawBlank(1240, 1754);
    const message = await rejection(extractText("blank-scan.pdf", buildImagePdf([{ jpeg, width, height }]), OCR), "ocr_no_text");
    expect(message).toBe('"blank-scan.pdf" has no text layer, and no text was found in its pages by OCR (confidence 0%).');
  });

  it("leaves out, undecoded, an image in a PDF whose dictionary claims more pixels than the limit", async () => {
    // 100,000 × 100,000 pixels would take 30 GB decoded: the worker would run out of memory.
    const { jpeg } = drawBlank(64, 64);
    const bomb = buildImagePdf([{ jpeg, width: 100_000, height: 100_000, dpi: 10_000 }]);
    const run = vi.spyOn(extractPool(), "run");
    await rejection(extractText("bomb.pdf", bomb, OCR), "empty");
    expect(run.mock.calls.map(([job]) => job.kind)).toEqual(["pdf"]);
  });

  it("refuses a PDF with more scanned pages than OCR_MAX_PAGES before reading any by OCR", async () => {
    const page = scannedPdfPage(["Page"]);
    const run = vi.spyOn(extractPool(), "run");
    expect(
      await rejection(extractText("scans.pdf", buildImagePdf([page, page, page]), { ...OCR, ocrMaxPages: 2 }), "too_many_scanned_pages"),
    ).toBe(
      '"scans.pdf" has more than 2 pages without a text layer, over the OCR_MAX_PAGES limit of pages read by OCR in one file; ' +
        "split it into smaller files.",
    );
    expect(run.mock.calls.map(([job]) => job.kind)).toEqual(["pdf"]);
  });
});
