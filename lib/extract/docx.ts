import mammoth from "mammoth";
import { OLE_MAGIC, ZIP_MAGIC, sniffBinary, startsWith } from "./detect";
import { RejectedFileError, quoted, shortReason } from "./errors";

// mammoth's only signal that a readable ZIP is some other format (xlsx, odt, epub, ...).
const NOT_A_DOCX = "Could not find main document part";

/** Raw text of a Word document; mammoth separates paragraphs with a blank line. */
export async function docxToText(filename: string, bytes: Uint8Array): Promise<string> {
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
  try {
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const { value } = await mammoth.extractRawText({ buffer });
    return value;
  } catch (err) {
    const reason = shortReason(err);
    if (reason.includes(NOT_A_DOCX)) {
      throw new RejectedFileError("type_mismatch", `${quoted(filename)} is a ZIP archive but not a Word document.`);
    }
    throw new RejectedFileError("unreadable", `${quoted(filename)} could not be read as a Word document: ${docxReason(reason)}.`);
  }
}

// Raw JSZip/xmldom messages mean little to users; keep them only when unrecognised.
function docxReason(reason: string): string {
  if (/corrupted zip|end of central directory|invalid zip/i.test(reason)) return "the file is damaged or truncated";
  if (/xmldom|xml/i.test(reason)) return "its XML content is malformed";
  return reason.replace(/\.$/, "");
}
