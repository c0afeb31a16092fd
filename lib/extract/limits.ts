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

function seconds(ms: number): string {
  const s = Number((ms / 1000).toFixed(3));
  return s === 1 ? "1 second" : `${s} seconds`;
}

/** A parser failure the format's own module explains (damaged file, wrong kind of ZIP, ...). */
export type ParseFailure = Extract<ExtractReply, { failure: "parse" | "damaged_zip" }>;

/**
 * Runs a parse in the worker pool. Limits, the deadline and the worker's memory limit
 * become RejectedFileErrors naming the file; a parser failure is returned for the caller to word.
 */
export async function extractInWorker(
  filename: string,
  type: DocumentType,
  job: ExtractJob,
  limits: Limits,
): Promise<{ text: string } | ParseFailure> {
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
  if (reply.ok) return { text: reply.text };
  if (reply.failure === "limit") {
    throw reply.code === "too_many_pages"
      ? tooManyPages(filename, reply.pages, limits.maxPdfPages)
      : tooMuchText(filename, type, limits.maxTextChars);
  }
  return reply;
}
