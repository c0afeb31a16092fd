import { docxToText } from "./docx";
import { ACCEPTED_EXTENSIONS, extensionOf, typeFromFilename } from "./detect";
import { RejectedFileError, formatMB, quoted, type DocumentType } from "./errors";
import { htmlToText } from "./html";
import { pdfToText } from "./pdf";
import { collapseBlankLines, decodeText, normalizeLineEndings } from "./text";

export { RejectedFileError, type DocumentType, type RejectionCode } from "./errors";
export { ACCEPTED_EXTENSIONS } from "./detect";

export interface ExtractOptions {
  /** Upper bound on the upload size; no limit when omitted. */
  maxBytes?: number;
}

/**
 * Validates an uploaded file against its name and returns its plain text.
 * Every refusal is a RejectedFileError whose message can be shown to the user as is.
 */
export async function extractText(
  filename: string,
  bytes: Uint8Array,
  opts: ExtractOptions = {},
): Promise<{ type: DocumentType; text: string }> {
  const type = typeFromFilename(filename);
  if (!type) throw unsupported(filename);

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

  const text = normalizeLineEndings(await toText(type, filename, bytes)).trimEnd();
  if (!text.trim()) throw noText(type, filename);
  return { type, text };
}

async function toText(type: DocumentType, filename: string, bytes: Uint8Array): Promise<string> {
  switch (type) {
    case "txt":
    case "md":
      return decodeText(filename, bytes);
    case "html":
      return htmlToText(normalizeLineEndings(decodeText(filename, bytes)));
    case "pdf":
      return collapseBlankLines(normalizeLineEndings(await pdfToText(filename, bytes)));
    case "docx":
      return collapseBlankLines(normalizeLineEndings(await docxToText(filename, bytes)));
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
      ? `${quoted(filename)} contains no extractable text. It may be a scanned image; run it through OCR and upload the result.`
      : type === "html"
        ? `${quoted(filename)} contains no visible text.`
        : `${quoted(filename)} contains no text.`;
  return new RejectedFileError("empty", message);
}
