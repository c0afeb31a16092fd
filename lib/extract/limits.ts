import { unavailable } from "../core/errors";
import { env } from "../env.mjs";
import { RejectedFileError, quoted, type DocumentType } from "./errors";
import { ExtractCrashed, ExtractOutOfMemory, ExtractTimeout, type ExtractJob, type ExtractReply } from "./pool";
import { extractPool } from "./state";

export interface Limits {
  maxTextChars: number;
  maxPdfPages: number;
  timeoutMs: number;
}

/** The caller's limits, each defaulting to its setting (MAX_TEXT_CHARS, MAX_PDF_PAGES, EXTRACT_TIMEOUT_MS). */
export function resolveLimits(given: Partial<Limits>): Limits {
  const { maxTextChars, maxPdfPages, timeoutMs } = given;
  if (maxTextChars !== undefined && maxPdfPages !== undefined && timeoutMs !== undefined) {
    return { maxTextChars, maxPdfPages, timeoutMs };
  }
  const config = env();
  return {
    maxTextChars: maxTextChars ?? config.MAX_TEXT_CHARS,
    maxPdfPages: maxPdfPages ?? config.MAX_PDF_PAGES,
    timeoutMs: timeoutMs ?? config.EXTRACT_TIMEOUT_MS,
  };
}

/** What OCR may do, each defaulting to its setting (MAX_IMAGE_PIXELS, OCR_LANGUAGES, OCR_MIN_CONFIDENCE, OCR_MAX_PAGES). */
export interface OcrLimits {
  maxImagePixels: number;
  ocrLanguages: string;
  ocrMinConfidence: number;
  ocrMaxPages: number;
}

/** Read from the settings only for a file that needs OCR. */
export function resolveOcrLimits(given: Partial<OcrLimits>): OcrLimits {
  const { maxImagePixels, ocrLanguages, ocrMinConfidence, ocrMaxPages } = given;
  if (maxImagePixels !== undefined && ocrLanguages !== undefined && ocrMinConfidence !== undefined && ocrMaxPages !== undefined) {
    return { maxImagePixels, ocrLanguages, ocrMinConfidence, ocrMaxPages };
  }
  const config = env();
  return {
    maxImagePixels: maxImagePixels ?? config.MAX_IMAGE_PIXELS,
    ocrLanguages: ocrLanguages ?? config.OCR_LANGUAGES,
    ocrMinConfidence: ocrMinConfidence ?? config.OCR_MIN_CONFIDENCE,
    ocrMaxPages: ocrMaxPages ?? config.OCR_MAX_PAGES,
  };
}

/**
 * Inflated bytes allowed per character of the text limit: for the XML parts of a .docx, and
 * for each compressed stream of a PDF. Markup runs about 3-10 times the text it holds (3.2 for
 * Word runs with basic formatting); 20 still admits heavily formatted files near the limit,
 * while a bomb is refused at a size that memory allows (100 MB with the default limit).
 */
export const EXPANDED_BYTES_PER_CHAR = 20;

const count = (n: number) => n.toLocaleString("en-US");

export function tooMuchText(filename: string, type: DocumentType, maxTextChars: number): RejectedFileError {
  const verb = type === "pdf" || type === "docx" ? "expands to" : "has";
  return new RejectedFileError(
    "too_much_text",
    `${quoted(filename)} ${verb} more than ${count(maxTextChars)} characters of text, over the MAX_TEXT_CHARS limit; ` +
      `split it into smaller files.`,
  );
}

function tooManyPages(filename: string, pages: number | undefined, maxPdfPages: number): RejectedFileError {
  const has = pages === undefined ? `has more than ${count(maxPdfPages)} pages` : `has ${count(pages)} pages`;
  return new RejectedFileError(
    "too_many_pages",
    `${quoted(filename)} ${has}, over the MAX_PDF_PAGES limit of ${count(maxPdfPages)}; split it into smaller files.`,
  );
}

const megapixels = (pixels: number) => `${Number((pixels / 1_000_000).toFixed(1)).toLocaleString("en-US")} megapixels`;

/** An image named by its dimensions and the limit, so the uploader knows how far to scale it down. */
export function tooManyPixels(filename: string, size: { width: number; height: number }, maxPixels: number): RejectedFileError {
  return new RejectedFileError(
    "too_many_pixels",
    `${quoted(filename)} is ${count(size.width)} × ${count(size.height)} pixels (${megapixels(size.width * size.height)}), ` +
      `over the MAX_IMAGE_PIXELS limit of ${megapixels(maxPixels)}; scale it down and upload it again.`,
  );
}

function tooManyScannedPages(filename: string, maxPages: number): RejectedFileError {
  return new RejectedFileError(
    "too_many_scanned_pages",
    `${quoted(filename)} has more than ${count(maxPages)} pages without a text layer, over the OCR_MAX_PAGES limit of pages read by OCR ` +
      `in one file; split it into smaller files.`,
  );
}

function seconds(ms: number): string {
  const s = Number((ms / 1000).toFixed(3));
  return s === 1 ? "1 second" : `${s} seconds`;
}

/** A parser failure the format's own module explains (damaged file, wrong kind of ZIP, ...). */
export type ParseFailure = Extract<ExtractReply, { failure: "parse" | "damaged_zip" }>;

/** What a job of this kind is answered with: a PDF's text layers page by page, else text (with OCR's confidence). */
export type WorkerAnswer<J extends ExtractJob> = J extends { kind: "pdf" }
  ? { pages: string[]; scanned: number[] }
  : { text: string; confidence?: number };

/**
 * Runs a parse in the worker pool. Limits, the deadline and the worker's memory limit
 * become RejectedFileErrors naming the file; a parser failure is returned for the caller to word.
 */
export async function extractInWorker<J extends ExtractJob>(
  filename: string,
  type: DocumentType,
  job: J,
  limits: Limits & Partial<OcrLimits>,
): Promise<WorkerAnswer<J> | ParseFailure> {
  let reply: ExtractReply;
  try {
    reply = await extractPool().run(job, limits.timeoutMs);
  } catch (err) {
    if (err instanceof ExtractTimeout) {
      throw new RejectedFileError(
        "extract_timeout",
        `${quoted(filename)} took too long to read (over ${seconds(limits.timeoutMs)}, the EXTRACT_TIMEOUT_MS limit). ` +
          `It may be damaged or unusually complex; split it into smaller files or save it again and retry.`,
      );
    }
    if (err instanceof ExtractOutOfMemory) {
      throw new RejectedFileError(
        "extract_out_of_memory",
        `${quoted(filename)} needs more memory to read than the server allows for one file; split it into smaller files.`,
      );
    }
    if (err instanceof ExtractCrashed) {
      throw new RejectedFileError("unreadable", `${quoted(filename)} could not be read: the reader failed on its content.`);
    }
    throw err;
  }
  // worker.mjs answers each kind of job with that kind's answer.
  if (reply.ok) return reply as unknown as WorkerAnswer<J>;
  if (reply.failure === "ocr_languages") {
    // The install, not the file: every image would fail the same way until the package is installed.
    throw unavailable(
      `${quoted(filename)} was not read: OCR needs ${reply.missing.join(" and ")}, which ${reply.missing.length === 1 ? "is" : "are"} not installed ` +
        `on the server (OCR_LANGUAGES). Install ${reply.missing.length === 1 ? "it" : "them"} with npm install ${reply.missing.join(" ")}.`,
    );
  }
  if (reply.failure === "limit") {
    switch (reply.code) {
      case "too_many_pages":
        throw tooManyPages(filename, reply.pages, limits.maxPdfPages);
      case "too_many_scanned_pages":
        throw tooManyScannedPages(filename, resolveOcrLimits(limits).ocrMaxPages);
      default:
        throw tooMuchText(filename, type, limits.maxTextChars);
    }
  }
  return reply;
}
