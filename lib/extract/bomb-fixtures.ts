// Builders for decompression bombs and oversized files, shared by the tests. Not imported by app code.
// The expanded content is never held in memory: a few KB of DEFLATE stand for hundreds of MB.
import zlib from "node:zlib";
import { utf8 } from "./test-fixtures";

/** A run of `times` copies of `bytes` inside a DEFLATE stream. */
export interface Piece {
  bytes: Uint8Array;
  times?: number;
}

const size = (pieces: Piece[]) => pieces.reduce((n, p) => n + p.bytes.length * (p.times ?? 1), 0);

/** Raw DEFLATE (as in a ZIP entry) of the pieces in order. */
export function deflateRepeated(pieces: Piece[]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const { bytes, times = 1 } of pieces) {
    // A full flush resets the compressor, so the same segment decodes the same wherever it sits.
    const segment = zlib.deflateRawSync(bytes, { level: 9, finishFlush: zlib.constants.Z_FULL_FLUSH });
    for (let i = 0; i < times; i++) parts.push(segment);
  }
  parts.push(new Uint8Array([0x03, 0x00])); // an empty final block
  return new Uint8Array(Buffer.concat(parts));
}

/** zlib-wrapped DEFLATE (a PDF /FlateDecode stream) of the pieces in order. */
export function zlibRepeated(pieces: Piece[]): Uint8Array {
  let adler = 1;
  for (const { bytes, times = 1 } of pieces) {
    const one = adler32(bytes);
    for (let i = 0; i < times; i++) adler = adler32Combine(adler, one, bytes.length);
  }
  const trailer = Buffer.alloc(4);
  trailer.writeUInt32BE(adler >>> 0);
  return new Uint8Array(Buffer.concat([new Uint8Array([0x78, 0xda]), deflateRepeated(pieces), trailer]));
}

const BASE = 65521;

function adler32(bytes: Uint8Array): number {
  let a = 1;
  let b = 0;
  for (const byte of bytes) {
    a = (a + byte) % BASE;
    b = (b + a) % BASE;
  }
  return (b << 16) | a;
}

// zlib's adler32_combine: the checksum of A followed by B from the checksums of each.
function adler32Combine(adlerA: number, adlerB: number, lengthB: number): number {
  const rem = lengthB % BASE;
  const a1 = adlerA & 0xffff;
  const b1 = (adlerA >>> 16) & 0xffff;
  const a = (a1 + (adlerB & 0xffff) + BASE - 1) % BASE;
  const b = (rem * a1 + b1 + ((adlerB >>> 16) & 0xffff) + BASE - rem) % BASE;
  return (b << 16) | a;
}

export interface ZipEntry {
  name: string;
  /** Stored entries are written as is; others are DEFLATEd from these pieces. */
  pieces: Piece[];
  store?: boolean;
  /** Uncompressed size written in the headers; the real size when omitted. A bomb may lie. */
  declaredSize?: number;
}

/** A ZIP archive from entries, without data descriptors or ZIP64. */
export function zipOf(entries: ZipEntry[]): Uint8Array {
  const locals: Uint8Array[] = [];
  const centrals: Uint8Array[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = utf8(entry.name);
    const data = entry.store ? Buffer.concat(entry.pieces.map((p) => p.bytes)) : deflateRepeated(entry.pieces);
    let crc = 0;
    for (const { bytes, times = 1 } of entry.pieces) for (let i = 0; i < times; i++) crc = zlib.crc32(bytes, crc);
    const real = size(entry.pieces);
    const declared = Math.min(entry.declaredSize ?? real, 0xfffffffe);

    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(entry.store ? 0 : 8, 8);
    local.writeUInt32LE(crc >>> 0, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(declared, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, data);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(entry.store ? 0 : 8, 10);
    central.writeUInt32LE(crc >>> 0, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(declared, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += local.length + name.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  // A plain Uint8Array, as an upload arrives.
  return new Uint8Array(Buffer.concat([...locals, directory, end]));
}

const CONTENT_TYPES =
  `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
  `<Default Extension="xml" ContentType="application/xml"/></Types>`;
const RELS =
  `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
  `<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>` +
  `</Relationships>`;
const DOCUMENT_OPEN = `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>`;
const DOCUMENT_CLOSE = `</w:body></w:document>`;

const MB = 1024 * 1024;
const PARAGRAPH = `<w:p><w:r><w:t>${"a".repeat(10_000)}</w:t></w:r></w:p>`;
/** About 1 MB of paragraphs: the unit a docx bomb repeats. */
const PARAGRAPHS_MB = utf8(PARAGRAPH.repeat(Math.floor(MB / PARAGRAPH.length)));

/**
 * A .docx whose word/document.xml is about `megabytes` MB of paragraphs, compressed to
 * about 1.3 KB per MB. `declaredSize` makes its ZIP directory lie about that size.
 */
export function buildDocxBomb(megabytes: number, declaredSize?: number): Uint8Array {
  return zipOf([
    { name: "[Content_Types].xml", pieces: [{ bytes: utf8(CONTENT_TYPES) }] },
    { name: "_rels/.rels", pieces: [{ bytes: utf8(RELS) }] },
    {
      name: "word/document.xml",
      pieces: [{ bytes: utf8(DOCUMENT_OPEN) }, { bytes: PARAGRAPHS_MB, times: megabytes }, { bytes: utf8(DOCUMENT_CLOSE) }],
      declaredSize,
    },
  ]);
}

/** Expanded size of buildDocxBomb's document.xml, for assertions. */
export const docxBombSize = (megabytes: number) => DOCUMENT_OPEN.length + PARAGRAPHS_MB.length * megabytes + DOCUMENT_CLOSE.length;

/**
 * A one-page PDF whose content stream (/FlateDecode) expands to about `megabytes` MB of
 * text-showing operators: lines of 80 characters (a line that fits the page), all drawn at one spot.
 */
export function buildPdfBomb(megabytes: number): Uint8Array {
  const line = `BT /F1 12 Tf 72 720 Td (${"a".repeat(80)}) Tj ET\n`;
  const unit = utf8(line.repeat(Math.floor(MB / line.length)));
  const stream = zlibRepeated([{ bytes: unit, times: megabytes }]);
  return pdfOf([
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>",
    { dict: `<< /Length ${stream.length} /Filter /FlateDecode >>`, stream },
  ]);
}

type PdfObject = string | { dict: string; stream: Uint8Array };

/** A PDF from its objects, numbered from 1; object 1 is the catalog. */
function pdfOf(objects: PdfObject[]): Uint8Array {
  const parts: Uint8Array[] = [utf8("%PDF-1.4\n")];
  let length = parts[0]!.length;
  const push = (bytes: Uint8Array) => {
    parts.push(bytes);
    length += bytes.length;
  };
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(length);
    if (typeof object === "string") {
      push(utf8(`${i + 1} 0 obj\n${object}\nendobj\n`));
    } else {
      push(utf8(`${i + 1} 0 obj\n${object.dict}\nstream\n`));
      push(object.stream);
      push(utf8("\nendstream\nendobj\n"));
    }
  });
  let tail = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) tail += `${String(offset).padStart(10, "0")} 00000 n \n`;
  tail += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`;
  push(utf8(tail));
  return new Uint8Array(Buffer.concat(parts));
}
