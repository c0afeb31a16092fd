import { extractText, getDocumentProxy } from "unpdf";
import { PDF_MAGIC, startsWith } from "./detect";
import { RejectedFileError, quoted, shortReason } from "./errors";

type PdfDocument = Awaited<ReturnType<typeof getDocumentProxy>>;

/** Text of every page, pages separated by a blank line. */
export async function pdfToText(filename: string, bytes: Uint8Array): Promise<string> {
  if (!startsWith(bytes, PDF_MAGIC)) {
    throw new RejectedFileError("type_mismatch", `${quoted(filename)} is not a PDF: its content does not start with %PDF-.`);
  }
  let doc: PdfDocument | undefined;
  try {
    // pdf.js transfers (detaches) the buffer it is given; copy so the caller's bytes stay usable.
    // verbosity 0: pdf.js otherwise prints recovery warnings for damaged files to the console.
    doc = await getDocumentProxy(bytes.slice(), { verbosity: 0 });
    const { text } = await extractText(doc, { mergePages: false });
    return text.join("\n\n");
  } catch (err) {
    throw new RejectedFileError("unreadable", `${quoted(filename)} could not be read as a PDF: ${pdfReason(err)}.`);
  } finally {
    // extractText only destroys documents it opened itself.
    await doc?.destroy().catch(() => {});
  }
}

function pdfReason(err: unknown): string {
  const name = err instanceof Error ? err.name : "";
  if (name === "PasswordException") return "it is password-protected";
  if (name === "InvalidPDFException") return "the file is damaged or truncated";
  return shortReason(err).replace(/\.$/, "");
}
