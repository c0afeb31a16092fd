import { PDF_MAGIC, startsWith } from "./detect";
import { RejectedFileError, quoted, shortReason } from "./errors";
import { EXPANDED_BYTES_PER_CHAR, extractInWorker, type Limits, type ParseFailure } from "./limits";

/** Text of every page, pages separated by a blank line; parsed in a worker thread (pdf-reader.mjs). */
export async function pdfToText(filename: string, bytes: Uint8Array, limits: Limits): Promise<string> {
  if (!startsWith(bytes, PDF_MAGIC)) {
    throw new RejectedFileError("type_mismatch", `${quoted(filename)} is not a PDF: its content does not start with %PDF-.`);
  }
  const maxChars = limits.maxTextChars;
  const maxStreamBytes = maxChars * EXPANDED_BYTES_PER_CHAR;
  const job = { kind: "pdf", bytes, maxChars, maxPages: limits.maxPdfPages, maxStreamBytes } as const;
  const result = await extractInWorker(filename, "pdf", job, limits);
  if ("text" in result) return result.text;
  throw new RejectedFileError("unreadable", `${quoted(filename)} could not be read as a PDF: ${pdfReason(result)}.`);
}

function pdfReason(failure: ParseFailure): string {
  if (failure.failure !== "parse") return "the file is damaged or truncated";
  if (failure.name === "PasswordException") return "it is password-protected";
  if (failure.name === "InvalidPDFException") return "the file is damaged or truncated";
  return shortReason(new Error(failure.message)).replace(/\.$/, "");
}
