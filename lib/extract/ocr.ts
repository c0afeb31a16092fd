import { RejectedFileError, quoted, shortReason, type DocumentType } from "./errors";
import { extractInWorker, type Limits, type OcrLimits, type ParseFailure } from "./limits";
import type { ExtractJob } from "./pool";

export interface OcrRead {
  text: string;
  confidence: number;
}

/** Text OCR stands behind: some that is not blank, read with at least the minimum confidence. */
export const isText = (read: OcrRead, limits: OcrLimits) => read.text.trim() !== "" && read.confidence >= limits.ocrMinConfidence;

/**
 * One OCR job (an image, or one page of a PDF) in the worker pool, under the same deadline and
 * worker memory as any reader. The engine's own failures become `unreadable`, worded by `what`.
 */
export async function runOcr(
  filename: string,
  type: DocumentType,
  job: Extract<ExtractJob, { kind: "ocr" }>,
  limits: Limits & Partial<OcrLimits>,
  what: string,
): Promise<OcrRead> {
  const result = await extractInWorker(filename, type, job, limits);
  if ("text" in result) return { text: result.text.trim(), confidence: result.confidence ?? 0 };
  throw new RejectedFileError("unreadable", `${quoted(filename)} could not be read as ${what}: ${ocrReason(result)}.`);
}

// How the engine says that it could not decode an image (Leptonica's own detail goes to the log).
const UNDECODED = /attempting to read image/i;

function ocrReason(failure: ParseFailure): string {
  if (failure.failure !== "parse" || UNDECODED.test(failure.message)) return "its image data is damaged or truncated";
  return shortReason(new Error(failure.message)).replace(/\.$/, "");
}

/** The mean of some confidences, rounded (0 for none). */
export const meanConfidence = (reads: OcrRead[]) =>
  reads.length ? Math.round(reads.reduce((sum, r) => sum + r.confidence, 0) / reads.length) : 0;
