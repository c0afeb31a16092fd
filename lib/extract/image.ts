import { sniffBinary } from "./detect";
import { RejectedFileError, quoted, type DocumentType, type ImageType } from "./errors";
import { imageSize } from "./image-size";
import { resolveOcrLimits, tooManyPixels, type Limits, type OcrLimits } from "./limits";
import { isText, runOcr } from "./ocr";
import type { OcrRecord } from "./ocr-record";

/**
 * The text of a PNG, JPEG or WebP image, read by OCR in the worker pool. The size its header
 * states is checked first: an image past MAX_IMAGE_PIXELS is refused before anything decodes it.
 * Any of the three formats is read under any of their extensions, and named by its content.
 */
export async function imageToText(
  filename: string,
  bytes: Uint8Array,
  limits: Limits & Partial<OcrLimits>,
): Promise<{ type: ImageType; text: string; ocr: OcrRecord }> {
  const size = imageSize(bytes);
  if (!size) throw notAnImage(filename, bytes);
  const ocr = resolveOcrLimits(limits);
  if (size.width * size.height > ocr.maxImagePixels) throw tooManyPixels(filename, size, ocr.maxImagePixels);
  const job = { kind: "ocr", source: "image", bytes, languages: ocr.ocrLanguages } as const;
  const read = await runOcr(filename, size.format, job, limits, "an image");
  if (!isText(read, ocr)) {
    throw new RejectedFileError("ocr_no_text", `${quoted(filename)}: no text was found in the image (OCR confidence ${read.confidence}%).`);
  }
  return { type: size.format, text: read.text, ocr: { image: { confidence: read.confidence } } };
}

function notAnImage(filename: string, bytes: Uint8Array): RejectedFileError {
  const seen = sniffBinary(bytes);
  // A PNG, JPEG or WebP whose header is cut short or states no size.
  if (seen === "a PNG image" || seen === "a JPEG image" || seen === "a WebP image") {
    return new RejectedFileError("unreadable", `${quoted(filename)} could not be read as an image: its header is damaged or truncated.`);
  }
  const detail = seen ? `it looks like ${seen}` : "its content is not a PNG, JPEG or WebP image";
  return new RejectedFileError("type_mismatch", `${quoted(filename)} is not an image this app reads: ${detail}.`);
}

/** The type an image's name gives (its content may be another of the three). */
export const isImageType = (type: DocumentType): type is ImageType => type === "png" || type === "jpeg" || type === "webp";
