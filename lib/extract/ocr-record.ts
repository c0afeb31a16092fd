/**
 * What a document's text owes to OCR, stored with it (documents.ocr): the image, or the PDF pages
 * read by OCR, each with the mean confidence (0-100) of what was read.
 */
export type OcrRecord = { image: { confidence: number } } | { pages: { page: number; confidence: number }[] };

/** "Read by OCR: pages 2, 3 (confidence 91%, 88%)", or "Read by OCR: the image (confidence 93%)". */
export function ocrSummary(record: OcrRecord): string {
  if ("image" in record) return `Read by OCR: the image (confidence ${record.image.confidence}%)`;
  const pages = record.pages;
  const which = `${pages.length === 1 ? "page" : "pages"} ${pages.map((p) => p.page).join(", ")}`;
  return `Read by OCR: ${which} (confidence ${pages.map((p) => `${p.confidence}%`).join(", ")})`;
}

/** A stored record, or null for a document OCR had no part in (or a value this version does not know). */
export function parseOcrRecord(json: string | null): OcrRecord | null {
  if (!json) return null;
  try {
    const value = JSON.parse(json) as unknown;
    if (typeof value === "object" && value !== null && ("image" in value || "pages" in value)) return value as OcrRecord;
  } catch {
    // Not ours to fail a read over: shown as no record.
  }
  return null;
}
