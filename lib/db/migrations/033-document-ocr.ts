import type { Migration } from "./migration";

// What a document's text owes to OCR (lib/extract/ocr.ts): `{"image": {"confidence": 93}}` for an
// image, `{"pages": [{"page": 2, "confidence": 91}]}` for the pages of a PDF read by OCR, each
// with the mean confidence (0-100) of what was read; NULL: none of its text came from OCR.
// Documents stored before it had none (images and scanned pages were refused).
export const migration: Migration = {
  sql: `ALTER TABLE documents ADD COLUMN ocr TEXT;`,
};
