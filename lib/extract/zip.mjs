// Plain ESM, run in the extraction worker: a ZIP reader that knows every entry's declared size
// before inflating anything, and never inflates more than the caller allows.
import zlib from "node:zlib";

/** The archive is not a ZIP we can read: truncated, damaged or using features a .docx never uses. */
export class ZipDamaged extends Error {
  /** @param {string} detail */
  constructor(detail) {
    super(detail);
    this.name = "ZipDamaged";
  }
}

/** An inflate went over the byte budget the caller gave. */
export class ZipBudgetExceeded extends Error {
  constructor() {
    super("over the byte budget");
    this.name = "ZipBudgetExceeded";
  }
}

/** @typedef {{ name: string, method: number, flags: number, compressedSize: number, size: number, localOffset: number }} ZipEntry */

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const MAX16 = 0xffff;
const MAX32 = 0xffffffff;

/**
 * The central directory: every entry with its declared (uncompressed) size. Reads no entry data.
 * @param {Uint8Array} bytes
 * @returns {Map<string, ZipEntry>}
 */
export function readDirectory(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = findEndOfDirectory(view);
  let count = view.getUint16(end + 10, true);
  let offset = view.getUint32(end + 16, true);
  if (count === MAX16 || offset === MAX32) ({ count, offset } = readZip64End(view, end));

  /** @type {Map<string, ZipEntry>} */
  const entries = new Map();
  const names = new TextDecoder();
  for (let i = 0; i < count; i++) {
    need(view, offset, 46);
    if (view.getUint32(offset, true) !== CENTRAL) throw new ZipDamaged("bad central directory entry");
    const nameLength = view.getUint16(offset + 28, true);
    const extraLength = view.getUint16(offset + 30, true);
    const commentLength = view.getUint16(offset + 32, true);
    need(view, offset + 46, nameLength + extraLength);
    const entry = {
      name: names.decode(bytes.subarray(offset + 46, offset + 46 + nameLength)),
      flags: view.getUint16(offset + 8, true),
      method: view.getUint16(offset + 10, true),
      compressedSize: view.getUint32(offset + 20, true),
      size: view.getUint32(offset + 24, true),
      localOffset: view.getUint32(offset + 42, true),
    };
    applyZip64Extra(view, offset + 46 + nameLength, extraLength, entry);
    entries.set(entry.name, entry);
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/**
 * One entry's content, inflating at most `budget` bytes whatever the directory claims.
 * @param {Uint8Array} bytes
 * @param {ZipEntry} entry
 * @param {number} budget
 * @returns {Uint8Array}
 */
export function readEntry(bytes, entry, budget) {
  if (entry.flags & 1) throw new ZipDamaged("encrypted entry");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  need(view, entry.localOffset, 30);
  if (view.getUint32(entry.localOffset, true) !== LOCAL) throw new ZipDamaged("bad local header");
  const start = entry.localOffset + 30 + view.getUint16(entry.localOffset + 26, true) + view.getUint16(entry.localOffset + 28, true);
  need(view, start, entry.compressedSize);
  const data = bytes.subarray(start, start + entry.compressedSize);
  if (entry.method === 0) {
    if (data.length > budget) throw new ZipBudgetExceeded();
    return data;
  }
  if (entry.method !== 8) throw new ZipDamaged(`compression method ${entry.method}`);
  try {
    // maxOutputLength stops inflating the moment the output passes the budget: a lying size cannot help.
    return zlib.inflateRawSync(data, { maxOutputLength: Math.max(1, budget), chunkSize: 1024 * 1024 });
  } catch (err) {
    if (/** @type {{ code?: string }} */ (err).code === "ERR_BUFFER_TOO_LARGE") throw new ZipBudgetExceeded();
    throw new ZipDamaged(err instanceof Error ? err.message : String(err));
  }
}

/** @param {DataView} view */
function findEndOfDirectory(view) {
  // The record is 22 bytes plus a comment of at most 64 KB, at the very end.
  const last = view.byteLength - 22;
  for (let at = last; at >= 0 && at >= last - MAX16; at--) {
    if (view.getUint32(at, true) === EOCD) return at;
  }
  throw new ZipDamaged("end of central directory not found");
}

/** @param {DataView} view @param {number} end */
function readZip64End(view, end) {
  const locator = end - 20;
  if (locator < 0 || view.getUint32(locator, true) !== ZIP64_LOCATOR) throw new ZipDamaged("ZIP64 locator missing");
  const at = safeNumber(view.getBigUint64(locator + 8, true));
  need(view, at, 56);
  if (view.getUint32(at, true) !== ZIP64_EOCD) throw new ZipDamaged("bad ZIP64 end of central directory");
  return { count: safeNumber(view.getBigUint64(at + 32, true)), offset: safeNumber(view.getBigUint64(at + 48, true)) };
}

/**
 * ZIP64 keeps the real values of fields set to 0xFFFFFFFF in extra field 0x0001, in this order.
 * @param {DataView} view @param {number} at @param {number} length @param {ZipEntry} entry
 */
function applyZip64Extra(view, at, length, entry) {
  for (let p = at; p + 4 <= at + length;) {
    const id = view.getUint16(p, true);
    const size = view.getUint16(p + 2, true);
    if (id === 0x0001) {
      let q = p + 4;
      const next = () => {
        need(view, q, 8);
        const value = safeNumber(view.getBigUint64(q, true));
        q += 8;
        return value;
      };
      if (entry.size === MAX32) entry.size = next();
      if (entry.compressedSize === MAX32) entry.compressedSize = next();
      if (entry.localOffset === MAX32) entry.localOffset = next();
      return;
    }
    p += 4 + size;
  }
}

/** @param {bigint} value */
function safeNumber(value) {
  // Sizes past 2^53 are refused by the caller's budget; keep them huge rather than wrapped.
  return value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(value);
}

/** @param {DataView} view @param {number} at @param {number} length */
function need(view, at, length) {
  if (at < 0 || at + length > view.byteLength) throw new ZipDamaged("truncated");
}
