import type { ImageType } from "./errors";
import { JPEG_MAGIC, PNG_MAGIC, isWebp, startsWith } from "./detect";

export interface ImageSize {
  format: ImageType;
  width: number;
  height: number;
}

/**
 * An image's format and size as its header states them, read from the bytes alone so that an
 * image too large to decode is refused before anything decodes it. PNG: the IHDR chunk; JPEG: the
 * first start-of-frame segment; WebP: the VP8, VP8L or VP8X header. Null when the bytes are none
 * of these, or their header is cut short or holds no size.
 */
export function imageSize(bytes: Uint8Array): ImageSize | null {
  if (startsWith(bytes, PNG_MAGIC)) return pngSize(bytes);
  if (startsWith(bytes, JPEG_MAGIC)) return jpegSize(bytes);
  if (isWebp(bytes)) return webpSize(bytes);
  return null;
}

const view = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
const tag = (bytes: Uint8Array, at: number) => String.fromCharCode(...bytes.subarray(at, at + 4));

function pngSize(bytes: Uint8Array): ImageSize | null {
  // The first chunk is IHDR: its length (4 bytes), type (4), then width and height, big-endian.
  if (bytes.length < 24 || tag(bytes, 12) !== "IHDR") return null;
  return sized("png", view(bytes).getUint32(16), view(bytes).getUint32(20));
}

// Start-of-frame markers: C0-CF except C4 (Huffman tables), C8 (reserved) and CC (arithmetic conditioning).
const isStartOfFrame = (marker: number) => marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
// Markers that stand alone, without a length: TEM, RST0-7, SOI.
const standsAlone = (marker: number) => marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8);

function jpegSize(bytes: Uint8Array): ImageSize | null {
  const data = view(bytes);
  let at = 2;
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) return null;
    const marker = bytes[at + 1]!;
    // A marker may be preceded by any number of 0xFF fill bytes.
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    if (standsAlone(marker)) {
      at += 2;
      continue;
    }
    // The image data (SOS) or its end (EOI) before any frame header: no size to read.
    if (marker === 0xda || marker === 0xd9) return null;
    const length = data.getUint16(at + 2);
    if (length < 2) return null;
    if (isStartOfFrame(marker)) {
      // Length (2), sample precision (1), then the number of lines and of samples per line.
      if (at + 9 > bytes.length) return null;
      return sized("jpeg", data.getUint16(at + 7), data.getUint16(at + 5));
    }
    at += 2 + length;
  }
  return null;
}

function webpSize(bytes: Uint8Array): ImageSize | null {
  if (bytes.length < 30) return null;
  const data = view(bytes);
  switch (tag(bytes, 12)) {
    case "VP8 ":
      // A lossy key frame: a 3-byte frame tag, the start code 9D 01 2A, then 14-bit width and height.
      if (bytes[23] !== 0x9d || bytes[24] !== 0x01 || bytes[25] !== 0x2a) return null;
      return sized("webp", data.getUint16(26, true) & 0x3fff, data.getUint16(28, true) & 0x3fff);
    case "VP8L": {
      // Lossless: the signature 0x2F, then width - 1 and height - 1 in 14 bits each, least significant first.
      if (bytes[20] !== 0x2f) return null;
      const bits = data.getUint32(21, true);
      return sized("webp", (bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1);
    }
    case "VP8X":
      // Extended: flags (1 byte), reserved (3), then the canvas's width - 1 and height - 1 in 24 bits each.
      return sized("webp", uint24(bytes, 24) + 1, uint24(bytes, 27) + 1);
    default:
      return null;
  }
}

const uint24 = (bytes: Uint8Array, at: number) => bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16);

const sized = (format: ImageType, width: number, height: number): ImageSize | null =>
  width > 0 && height > 0 ? { format, width, height } : null;
