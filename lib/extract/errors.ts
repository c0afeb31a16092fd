import { BaseError, type ErrorCode, type RejectionCode } from "../core/errors";

export type DocumentType = "txt" | "md" | "html" | "pdf" | "docx" | ImageType;

/** Images read by OCR (lib/extract/image.ts), named by their content's format. */
export type ImageType = "png" | "jpeg" | "webp";

export type { RejectionCode };

/** Refusals for being too big in some way (bytes, extracted text, PDF pages, pixels, pages to read by OCR): HTTP 413. */
export const SIZE_LIMIT_CODES: readonly string[] = [
  "too_large",
  "too_much_text",
  "too_many_pages",
  "too_many_pixels",
  "too_many_scanned_pages",
];

/** An upload we refuse; `message` is written for the person who uploaded the file. */
export class RejectedFileError extends BaseError {
  constructor(
    readonly code: RejectionCode,
    message: string,
  ) {
    super(message);
    this.name = "RejectedFileError";
  }

  get errorCode(): ErrorCode {
    return `rejected_${this.code}`;
  }
}

/** `"name"` as it appears in every message, so users can tell which file of a batch failed. */
export function quoted(filename: string): string {
  return `"${filename}"`;
}

/**
 * A one-line reason from a parser error. Parser messages can be multi-line
 * (xmldom) or carry debugging noise, and must never leak a stack to users.
 */
export function shortReason(err: unknown): string {
  const raw = err instanceof Error ? err.message : String(err);
  const line = (raw.split("\n")[0] ?? "")
    .replace(/^error:\s*/i, "")
    .replace(/\s+/g, " ")
    .trim();
  if (!line) return "unknown error";
  return line.length > 120 ? `${line.slice(0, 117)}...` : line;
}

const MB = 1024 * 1024;

export function formatMB(bytes: number): string {
  const mb = bytes / MB;
  // Two decimals below 10 MB so small sizes and limits (0.25 MB, 0.5 MB) stay distinguishable.
  const digits = mb < 10 ? 2 : 1;
  return `${Number(mb.toFixed(digits))} MB`;
}
