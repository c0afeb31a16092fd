import { OLE_MAGIC, ZIP_MAGIC, sniffBinary, startsWith } from "./detect";
import { RejectedFileError, quoted, shortReason } from "./errors";
import { EXPANDED_BYTES_PER_CHAR, extractInWorker, type Limits, type ParseFailure } from "./limits";

// How docx-reader.mjs says that a readable ZIP is some other format (xlsx, odt, epub, ...).
const NOT_A_DOCX = "Could not find main document part";

/**
 * Raw text of a Word document, paragraphs separated by a blank line. Parsed in a
 * worker thread (docx-reader.mjs), which refuses XML past EXPANDED_BYTES_PER_CHAR per allowed character.
 */
export async function docxToText(filename: string, bytes: Uint8Array, limits: Limits): Promise<string> {
  if (startsWith(bytes, OLE_MAGIC)) {
    throw new RejectedFileError(
      "type_mismatch",
      `${quoted(filename)} looks like an old-style .doc file, not .docx. Open it in Word and save it as .docx.`,
    );
  }
  if (!startsWith(bytes, ZIP_MAGIC)) {
    const seen = sniffBinary(bytes);
    const detail = seen ? `it looks like ${seen}` : "its content is not the ZIP archive a .docx file must be";
    throw new RejectedFileError("type_mismatch", `${quoted(filename)} is not a Word document: ${detail}.`);
  }
  const maxChars = limits.maxTextChars;
  const job = { kind: "docx", bytes, maxChars, maxXmlBytes: maxChars * EXPANDED_BYTES_PER_CHAR } as const;
  const result = await extractInWorker(filename, "docx", job, limits);
  if ("text" in result) return result.text;
  if (result.failure === "parse" && result.message.includes(NOT_A_DOCX)) {
    throw new RejectedFileError("type_mismatch", `${quoted(filename)} is a ZIP archive but not a Word document.`);
  }
  throw new RejectedFileError("unreadable", `${quoted(filename)} could not be read as a Word document: ${docxReason(result)}.`);
}

// Raw parser messages mean little to users; keep them only when unrecognised.
function docxReason(failure: ParseFailure): string {
  if (failure.failure === "damaged_zip") return "the file is damaged or truncated";
  const reason = shortReason(new Error(failure.message));
  if (/corrupted zip|end of central directory|invalid zip/i.test(reason)) return "the file is damaged or truncated";
  if (/xmldom|xml/i.test(reason)) return "its XML content is malformed";
  return reason.replace(/\.$/, "");
}
