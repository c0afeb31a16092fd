// Plain ESM, run in the extraction worker: PDF text page by page, stopping at the limits.
import { getDocumentProxy } from "unpdf";
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
 * Text of every page, pages separated by a blank line. Refuses more than `maxPages` pages
 * before reading any, and stops reading (mid-page if need be) once the text passes `maxChars`
 * or a stream inflates past `maxStreamBytes`.
 * @param {Uint8Array} bytes handed to pdf.js, which detaches their buffer
 * @param {{ maxChars: number, maxPages: number, maxStreamBytes: number }} limits
 * @returns {Promise<string>}
 */
export async function readPdfText(bytes, { maxChars, maxPages, maxStreamBytes }) {
  streams.budget = maxStreamBytes;
  streams.exceeded = false;
  // verbosity 0: pdf.js otherwise prints recovery warnings for damaged files to the console.
  const doc = await getDocumentProxy(bytes, { verbosity: 0 });
  let destroy = true;
  try {
    if (doc.numPages > maxPages) throw new LimitExceeded("too_many_pages", doc.numPages);
    /** @type {string[]} */
    const pages = [];
    let length = 0;
    for (let n = 1; n <= doc.numPages; n++) {
      const separator = n > 1 ? 2 : 0;
      const page = await doc.getPage(n);
      const text = await pageText(page, maxChars - length - separator);
      if (streams.exceeded) throw new LimitExceeded("too_much_text");
      pages.push(text);
      length += separator + text.length;
    }
    return pages.join("\n\n");
  } catch (err) {
    // pdf.js may still be working on a page given up on, and fails on a destroy mid-way;
    // the worker that read it is replaced instead (see worker.mjs).
    if (err instanceof LimitExceeded) destroy = false;
    throw err;
  } finally {
    if (destroy) await doc.destroy().catch(() => {});
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
