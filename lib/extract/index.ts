import type { Metadata } from "../core/metadata";
import { validPageStarts } from "../core/pages";
import { docxToText } from "./docx";
import { ACCEPTED_EXTENSIONS, extensionOf, typeFromFilename } from "./detect";
import { RejectedFileError, formatMB, quoted, type DocumentType } from "./errors";
import { htmlToText } from "./html.mjs";
import { LimitExceeded } from "./limit-exceeded.mjs";
import { extractInWorker, resolveLimits, tooMuchText, type Limits, type OcrLimits } from "./limits";
import { imageToText, isImageType } from "./image";
import type { OcrRecord } from "./ocr-record";
import { pdfToText } from "./pdf";
import { collapseBlankLines, decodeText, normalizeLineEndings } from "./text";
import { htmlMetaTags, markdownFrontMatter } from "./file-metadata";
import { markdownTables } from "./markdown-tables";
import { markdownImages } from "./markdown-images";

export { RejectedFileError, SIZE_LIMIT_CODES, type DocumentType, type RejectionCode } from "./errors";
export { ACCEPTED_EXTENSIONS } from "./detect";
export { ocrSummary, type OcrRecord } from "./ocr-record";

/**
 * maxTextChars, maxPdfPages and timeoutMs default to MAX_TEXT_CHARS, MAX_PDF_PAGES and
 * EXTRACT_TIMEOUT_MS; OCR's limits to MAX_IMAGE_PIXELS, OCR_LANGUAGES, OCR_MIN_CONFIDENCE and
 * OCR_MAX_PAGES, read only for a file that needs OCR.
 */
export interface ExtractOptions extends Partial<Limits>, Partial<OcrLimits> {
  /** Upper bound on the upload size; no limit when omitted. */
  maxBytes?: number;
}

// Smaller pages parse in a few tens of milliseconds, less than a worker round trip costs.
const INLINE_HTML_CHARS = 256 * 1024;

/**
 * A file's text, what it says about itself, what OCR read of it (images, PDF pages without a text
 * layer), and for a PDF where each of its pages starts in the text (lib/core/pages.ts).
 */
export interface Extracted {
  type: DocumentType;
  text: string;
  metadata?: Metadata;
  ocr?: OcrRecord;
  pageStarts?: number[];
}

/**
 * Validates an uploaded file against its name and returns its plain text.
 * Every refusal is a RejectedFileError whose message can be shown to the user as is.
 */
export async function extractText(filename: string, bytes: Uint8Array, opts: ExtractOptions = {}): Promise<Extracted> {
  const named = typeFromFilename(filename);
  if (!named) throw unsupported(filename);

  const { maxBytes } = opts;
  if (maxBytes !== undefined && bytes.byteLength > maxBytes) {
    const size = formatMB(bytes.byteLength);
    const limit = formatMB(maxBytes);
    // Rounding can make a file just over the limit print as the limit itself.
    const shown = size === limit ? `more than ${limit}` : size;
    throw new RejectedFileError("too_large", `${quoted(filename)} is ${shown}, over the ${limit} upload limit.`);
  }
  if (bytes.byteLength === 0) {
    throw new RejectedFileError("empty", `${quoted(filename)} is empty (0 bytes).`);
  }

  const limits = { ...opts, ...resolveLimits(opts) };
  const read = await toText(named, filename, bytes, limits);
  // An image is named by its content's format, which may not be its extension's.
  const type = read.type ?? named;
  let text = normalizeLineEndings(read.text).trimEnd();
  if (text.length > limits.maxTextChars) throw tooMuchText(filename, type, limits.maxTextChars);
  // What the file says about itself: a Markdown file's front matter (not indexed as text), a page's meta tags.
  let metadata: Metadata = {};
  if (type === "md") {
    ({ text, metadata } = markdownFrontMatter(text));
    text = markdownImages(markdownTables(text));
  }
  if (type === "html") metadata = htmlMetaTags(decodeText(filename, bytes));
  if (!text.trim()) throw noText(type, filename);
  // A PDF's text is tidied page by page as it is joined (joinPages), so the tidying above keeps every page's start.
  const pageStarts = read.pageStarts && validPageStarts(read.pageStarts, text.length) ? read.pageStarts : undefined;
  return {
    type,
    text,
    ...(Object.keys(metadata).length ? { metadata } : {}),
    ...(read.ocr ? { ocr: read.ocr } : {}),
    ...(pageStarts ? { pageStarts } : {}),
  };
}

type Read = { text: string; type?: DocumentType; ocr?: OcrRecord; pageStarts?: number[] };

async function toText(type: DocumentType, filename: string, bytes: Uint8Array, limits: Limits & Partial<OcrLimits>): Promise<Read> {
  if (isImageType(type)) return collapsed(await imageToText(filename, bytes, limits));
  switch (type) {
    case "txt":
    case "md":
      // UTF-8 needs at most 3 bytes per UTF-16 unit: past 3 bytes per allowed character, no need to decode.
      if (bytes.byteLength > 3 * limits.maxTextChars) throw tooMuchText(filename, type, limits.maxTextChars);
      return { text: decodeText(filename, bytes) };
    case "html":
      return { text: await htmlText(filename, normalizeLineEndings(decodeText(filename, bytes)), limits) };
    case "pdf":
      return collapsed(await pdfToText(filename, bytes, limits));
    case "docx":
      return collapsed({ text: await docxToText(filename, bytes, limits) });
  }
}

const collapsed = (read: Read): Read => ({ ...read, text: collapseBlankLines(normalizeLineEndings(read.text)) });

async function htmlText(filename: string, html: string, limits: Limits): Promise<string> {
  const maxChars = limits.maxTextChars;
  if (html.length > INLINE_HTML_CHARS) {
    const result = await extractInWorker(filename, "html", { kind: "html", html, maxChars }, limits);
    if ("text" in result) return result.text;
    // The HTML tokenizer recovers from any markup; a failure here is a bug, not a bad file.
    throw new Error(`HTML extraction failed: ${result.failure === "parse" ? result.message : result.failure}`);
  }
  try {
    return htmlToText(html, maxChars);
  } catch (err) {
    if (err instanceof LimitExceeded) throw tooMuchText(filename, "html", maxChars);
    throw err;
  }
}

function unsupported(filename: string): RejectedFileError {
  const ext = extensionOf(filename);
  const what = ext ? `.${ext} files are not supported` : "it has no file extension";
  const hint = ext === "doc" ? " Save it as .docx and upload it again." : "";
  return new RejectedFileError(
    "unsupported_type",
    `${quoted(filename)} cannot be uploaded: ${what}. Accepted types: ${ACCEPTED_EXTENSIONS.join(", ")}.${hint}`,
  );
}

function noText(type: DocumentType, filename: string): RejectedFileError {
  const message =
    type === "pdf"
      ? `${quoted(filename)} contains no text: its pages have no text layer, and no image for OCR to read.`
      : type === "html"
        ? `${quoted(filename)} contains no visible text.`
        : `${quoted(filename)} contains no text.`;
  return new RejectedFileError("empty", message);
}
