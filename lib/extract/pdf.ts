import { joinPages } from "../core/pages";
import { PDF_MAGIC, startsWith } from "./detect";
import { RejectedFileError, quoted, shortReason } from "./errors";
import { EXPANDED_BYTES_PER_CHAR, extractInWorker, resolveOcrLimits, type Limits, type OcrLimits, type ParseFailure } from "./limits";
import { isText, meanConfidence, runOcr, type OcrRead } from "./ocr";
import type { OcrRecord } from "./ocr-record";

/**
 * Text of every page in page order, pages separated by a blank line, and where each page starts
 * in it (lib/core/pages.ts); parsed in a worker thread (pdf-reader.mjs), which also names the pages
 * to read by OCR (no text layer, but an image). Each of those is then rendered and read by OCR as
 * a job of its own, with the reader's deadline, so other files are read in between; OCR's text
 * replaces the page's layer when it stands behind it.
 */
export async function pdfToText(
  filename: string,
  bytes: Uint8Array,
  limits: Limits & Partial<OcrLimits>,
): Promise<{ text: string; ocr?: OcrRecord; pageStarts: number[] }> {
  if (!startsWith(bytes, PDF_MAGIC)) {
    throw new RejectedFileError("type_mismatch", `${quoted(filename)} is not a PDF: its content does not start with %PDF-.`);
  }
  const ocr = resolveOcrLimits(limits);
  const maxChars = limits.maxTextChars;
  const maxStreamBytes = maxChars * EXPANDED_BYTES_PER_CHAR;
  const maxPixels = ocr.maxImagePixels;
  const job = {
    kind: "pdf",
    bytes,
    maxChars,
    maxPages: limits.maxPdfPages,
    maxStreamBytes,
    maxScanned: ocr.ocrMaxPages,
    maxPixels,
  } as const;
  const result = await extractInWorker(filename, "pdf", job, { ...limits, ...ocr });
  if (!("pages" in result)) {
    throw new RejectedFileError("unreadable", `${quoted(filename)} could not be read as a PDF: ${pdfReason(result)}.`);
  }
  const { pages, scanned } = result;
  if (!scanned.length) {
    const { text, starts } = joinPages(pages);
    return { text, pageStarts: starts };
  }

  const reads: (OcrRead & { page: number })[] = [];
  for (const page of scanned) {
    const pageJob = { kind: "ocr", source: "pdf", bytes, languages: ocr.ocrLanguages, page, maxPixels, maxStreamBytes } as const;
    reads.push({ page, ...(await runOcr(filename, "pdf", pageJob, { ...limits, ...ocr }, `a PDF (page ${page})`)) });
  }
  const used = reads.filter((read) => isText(read, ocr));
  for (const read of used) pages[read.page - 1] = read.text;
  const { text, starts } = joinPages(pages);
  if (!text.trim()) {
    throw new RejectedFileError(
      "ocr_no_text",
      `${quoted(filename)} has no text layer, and no text was found in its pages by OCR (confidence ${meanConfidence(reads)}%).`,
    );
  }
  const ocrRecord = used.length ? { ocr: { pages: used.map(({ page, confidence }) => ({ page, confidence })) } } : {};
  return { text, pageStarts: starts, ...ocrRecord };
}

function pdfReason(failure: ParseFailure): string {
  if (failure.failure !== "parse") return "the file is damaged or truncated";
  if (failure.name === "PasswordException") return "it is password-protected";
  if (failure.name === "InvalidPDFException") return "the file is damaged or truncated";
  return shortReason(new Error(failure.message)).replace(/\.$/, "");
}
