// Plain ESM, run in the extraction worker: PDF text page by page, stopping at the limits, and a
// page rendered as an image for OCR.
import { getDocumentProxy, getResolvedPDFJS, renderPageAsImage } from "unpdf";
import { LimitExceeded } from "./limit-exceeded.mjs";

// pdf.js inflates content, font and CMap streams whole with the web DecompressionStream, so a
// small compressed stream could claim any amount of memory. Each stream of the current job
// is cut off at its budget, which marks the job as over the text limit.
const NativeDecompressionStream = globalThis.DecompressionStream;
const streams = { budget: Infinity, exceeded: false };

class BoundedDecompressionStream {
  /** @param {CompressionFormat} format */
  constructor(format) {
    const inner = new NativeDecompressionStream(format);
    let seen = 0;
    this.writable = inner.writable;
    this.readable = inner.readable.pipeThrough(
      new TransformStream({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen <= streams.budget) return controller.enqueue(chunk);
          streams.exceeded = true;
          // Ends the output early (pdf.js keeps what it got) and stops the inflating.
          controller.terminate();
        },
      }),
    );
  }
}
globalThis.DecompressionStream = /** @type {typeof DecompressionStream} */ (BoundedDecompressionStream);

/**
 * The text layer of every page, in page order (a page without one gives ""), and the pages to
 * read by OCR (see isScanned; none without `maxScanned`). Refuses more than `maxPages` pages
 * before reading any, and stops reading (mid-page if need be) once the text, counted with a blank
 * line between pages, passes `maxChars` or a stream inflates past `maxStreamBytes`, or once more
 * than `maxScanned` pages are to be read by OCR.
 * @param {Uint8Array} bytes handed to pdf.js, which detaches their buffer
 * @param {{ maxChars: number, maxPages: number, maxStreamBytes: number, maxScanned?: number, maxPixels?: number }} limits
 * @returns {Promise<{ pages: string[], scanned: number[] }>}
 */
export async function readPdfPages(bytes, { maxChars, maxPages, maxStreamBytes, maxScanned = 0, maxPixels = 0 }) {
  streams.budget = maxStreamBytes;
  streams.exceeded = false;
  // verbosity 0: pdf.js otherwise prints recovery warnings for damaged files to the console. An
  // image past maxPixels is left out, undecoded, where a page's images are read (isScanned).
  const doc = await getDocumentProxy(bytes, { verbosity: 0, ...(maxPixels ? { maxImageSize: maxPixels } : {}) });
  let destroy = true;
  try {
    if (doc.numPages > maxPages) throw new LimitExceeded("too_many_pages", doc.numPages);
    /** @type {string[]} */
    const pages = [];
    /** @type {number[]} */
    const scanned = [];
    let length = 0;
    for (let n = 1; n <= doc.numPages; n++) {
      const separator = n > 1 ? 2 : 0;
      const page = await doc.getPage(n);
      const text = await pageText(page, maxChars - length - separator);
      if (streams.exceeded) throw new LimitExceeded("too_much_text");
      pages.push(text);
      length += separator + text.length;
      if (!maxScanned || letters(text) >= SCANNED_PAGE_MAX_CHARS || !(await isScanned(page, text, maxStreamBytes, maxPixels))) continue;
      scanned.push(n);
      if (scanned.length > maxScanned) throw new LimitExceeded("too_many_scanned_pages");
    }
    return { pages, scanned };
  } catch (err) {
    // pdf.js may still be working on a page given up on, and fails on a destroy mid-way;
    // the worker that read it is replaced instead (see worker.mjs).
    if (err instanceof LimitExceeded) destroy = false;
    throw err;
  } finally {
    if (destroy) await doc.destroy().catch(() => {});
  }
}

// A page whose text layer holds fewer letters and digits than this is taken for a scan (a page
// number or a stamp over an image) when it paints an image.
const SCANNED_PAGE_MAX_CHARS = 16;

const letters = (/** @type {string} */ text) => text.match(/[\p{L}\p{N}]/gu)?.length ?? 0;

const IMAGES = [
  "paintImageXObject",
  "paintImageXObjectRepeat",
  "paintInlineImageXObject",
  "paintInlineImageXObjectGroup",
  "paintImageMaskXObject",
  "paintImageMaskXObjectGroup",
  "paintImageMaskXObjectRepeat",
];
const GLYPHS = ["showText", "showSpacedText", "nextLineShowText", "nextLineSetSpacingShowText"];

/**
 * Whether a page with (next to) no text layer is to be read by OCR: it paints an image (a scan),
 * or, with no text at all, glyphs (a font that maps them to no characters). A blank page, or one
 * of lines and shapes only, is not. Building the operator list decodes the page's images, so
 * their streams get the budget a rendering gives them, and the page's objects are let go after.
 * @param {any} page a pdf.js page
 * @param {string} layer the page's text layer
 * @param {number} maxStreamBytes
 * @param {number} maxPixels
 */
async function isScanned(page, layer, maxStreamBytes, maxPixels) {
  const { OPS } = await getResolvedPDFJS();
  const inked = new Set([...IMAGES, ...(letters(layer) === 0 ? GLYPHS : [])].map((name) => OPS[name]));
  streams.budget = renderBudget(maxStreamBytes, maxPixels);
  try {
    const { fnArray } = await page.getOperatorList();
    return fnArray.some((/** @type {number} */ op) => inked.has(op));
  } catch {
    // A page pdf.js cannot lay out keeps what its text layer gave.
    return false;
  } finally {
    streams.budget = maxStreamBytes;
    streams.exceeded = false;
    page.cleanup();
  }
}

/** A stream's budget while images are decoded: room for an image of `maxPixels` at 4 bytes a pixel. */
const renderBudget = (/** @type {number} */ maxStreamBytes, /** @type {number} */ maxPixels) =>
  Math.max(maxStreamBytes, 4 * maxPixels + 1024 * 1024);

// Scans are read best at 300 dpi (tesseract's own advice); a larger page is rendered smaller.
const RENDER_DPI = 300;

/**
 * One page rendered as a PNG for OCR: at 300 dpi, or at the scale that keeps it within
 * `maxPixels`. An image in the page past `maxPixels` is left out by pdf.js before it is decoded.
 * Streams are cut at the budget images get (a cut stream renders what it got).
 * @param {Uint8Array} bytes handed to pdf.js, which detaches their buffer
 * @param {{ page: number, maxPixels: number, maxStreamBytes: number }} limits
 * @returns {Promise<Uint8Array>}
 */
export async function renderPdfPage(bytes, { page, maxPixels, maxStreamBytes }) {
  streams.budget = renderBudget(maxStreamBytes, maxPixels);
  streams.exceeded = false;
  const doc = await getDocumentProxy(bytes, { verbosity: 0, maxImageSize: maxPixels });
  try {
    const { width, height } = (await doc.getPage(page)).getViewport({ scale: 1 });
    const scale = Math.min(RENDER_DPI / 72, Math.sqrt(maxPixels / Math.max(1, width * height)));
    const png = await renderPageAsImage(doc, page, { canvasImport: () => import("@napi-rs/canvas"), scale });
    return new Uint8Array(png);
  } finally {
    await doc.destroy().catch(() => {});
  }
}

/**
 * A page's text as unpdf's extractText builds it, read as a stream so a page holding a
 * decompression bomb is abandoned at the budget instead of being expanded whole.
 * @param {{ streamTextContent(): ReadableStream<{ items: { str?: string, hasEOL?: boolean }[] }> }} page
 * @param {number} budget
 */
async function pageText(page, budget) {
  const reader = page.streamTextContent().getReader();
  /** @type {string[]} */
  const parts = [];
  let length = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return parts.join("");
    if (streams.exceeded) throw new LimitExceeded("too_much_text");
    for (const item of value.items) {
      if (typeof item.str !== "string") continue;
      const text = item.hasEOL ? `${item.str}\n` : item.str;
      length += text.length;
      if (length > budget) throw new LimitExceeded("too_much_text");
      parts.push(text);
    }
  }
}
