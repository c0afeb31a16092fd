import type { DocumentType } from "./errors";

const EXTENSIONS: Record<string, DocumentType> = {
  txt: "txt",
  md: "md",
  markdown: "md",
  html: "html",
  htm: "html",
  pdf: "pdf",
  docx: "docx",
  png: "png",
  jpg: "jpeg",
  jpeg: "jpeg",
  webp: "webp",
};

export const ACCEPTED_EXTENSIONS = Object.keys(EXTENSIONS).map((e) => `.${e}`);

/** Lower-cased extension without the dot, or "" when the name has none. */
export function extensionOf(filename: string): string {
  const base = filename.split(/[\\/]/).pop() ?? "";
  const dot = base.lastIndexOf(".");
  return dot === -1 ? "" : base.slice(dot + 1).toLowerCase();
}

export function typeFromFilename(filename: string): DocumentType | null {
  const ext = extensionOf(filename);
  return Object.hasOwn(EXTENSIONS, ext) ? EXTENSIONS[ext]! : null;
}

export function startsWith(bytes: Uint8Array, signature: readonly number[]): boolean {
  if (bytes.length < signature.length) return false;
  return signature.every((b, i) => bytes[i] === b);
}

const ascii = (s: string) => Array.from(s, (c) => c.charCodeAt(0));

export const PDF_MAGIC = ascii("%PDF-");
export const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
export const JPEG_MAGIC = [0xff, 0xd8, 0xff];
const RIFF_MAGIC = ascii("RIFF");
const WEBP_MAGIC = ascii("WEBP");

/** A RIFF container whose form type (bytes 8-11) is WEBP. */
export function isWebp(bytes: Uint8Array): boolean {
  return startsWith(bytes, RIFF_MAGIC) && startsWith(bytes.subarray(8), WEBP_MAGIC);
}
export const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04];
/** Compound File Binary: the container of legacy .doc/.xls files. */
export const OLE_MAGIC = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

// Formats users plausibly rename by mistake; the label goes straight into a message.
const SIGNATURES: { label: string; magic: readonly number[] }[] = [
  { label: "a PDF file", magic: PDF_MAGIC },
  { label: "a ZIP file (such as a .docx)", magic: ZIP_MAGIC },
  { label: "a ZIP file", magic: [0x50, 0x4b, 0x05, 0x06] },
  { label: "a PNG image", magic: PNG_MAGIC },
  { label: "a JPEG image", magic: JPEG_MAGIC },
  { label: "a GIF image", magic: ascii("GIF8") },
  { label: "a legacy Office file (such as a .doc)", magic: OLE_MAGIC },
  { label: "a gzip archive", magic: [0x1f, 0x8b] },
];

/** What a file's first bytes say it is, for binary formats we recognise; null otherwise. */
export function sniffBinary(bytes: Uint8Array): string | null {
  if (isWebp(bytes)) return "a WebP image";
  return SIGNATURES.find((s) => startsWith(bytes, s.magic))?.label ?? null;
}
