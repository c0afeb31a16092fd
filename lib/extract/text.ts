import { sniffBinary, startsWith } from "./detect";
import { RejectedFileError, quoted } from "./errors";

const UTF16_LE_BOM = [0xff, 0xfe];
const UTF16_BE_BOM = [0xfe, 0xff];

/**
 * Decodes a file that claims to be text. Rejects binaries renamed to a text
 * extension (type_mismatch) separately from text in another encoding
 * (encoding), because the fix the user needs differs.
 */
export function decodeText(filename: string, bytes: Uint8Array): string {
  const binary = sniffBinary(bytes);
  if (binary) {
    throw new RejectedFileError("type_mismatch", `${quoted(filename)} looks like ${binary}, not text.`);
  }
  // Checked before the NUL test: UTF-16 text is full of NUL bytes but is still text.
  if (startsWith(bytes, UTF16_LE_BOM) || startsWith(bytes, UTF16_BE_BOM)) {
    throw new RejectedFileError("encoding", `${quoted(filename)} is encoded as UTF-16. Save it as UTF-8 and upload it again.`);
  }
  if (bytes.includes(0)) {
    throw new RejectedFileError("type_mismatch", `${quoted(filename)} looks like a binary file, not text.`);
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new RejectedFileError(
      "encoding",
      `${quoted(filename)} is not valid UTF-8 text (it may use a legacy encoding such as Windows-1252). ` +
        `Save it as UTF-8 and upload it again.`,
    );
  }
  // ignoreBOM keeps the BOM in the output so stripping it here is explicit, not a decoder default.
  return text.startsWith("\uFEFF") ? text.slice(1) : text;
}

export function normalizeLineEndings(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}

/** For parser output (pdf, docx), where runs of empty paragraphs or pages carry no meaning. */
export function collapseBlankLines(text: string): string {
  return text.replace(/[^\S\n]+\n/g, "\n").replace(/\n{3,}/g, "\n\n");
}
