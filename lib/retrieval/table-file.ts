import fs from "node:fs";
import path from "node:path";
import { VectorTable, type Precision } from "./exact-kernel";

/**
 * A vector table kept on disk, so that a restart reads a large agent's table (a few hundred MB,
 * a second or so) instead of building it again from every vector in SQLite.
 *
 * The file: a header of HEADER_BYTES (little-endian u32s: magic "KBVT", FORMAT, dimension, row
 * stride, precision 0 f32 / 1 i8, rows, removed rows, bytes of meta; then the file's bytes as a
 * float64), the caller's meta string (UTF-8), then per row documentOf and chunkOf (i32), alive
 * (u8) and, for i8, the errors and scales (f32), and last the rows' values as the table holds them.
 */
const MAGIC = 0x5456424b; // "KBVT" read as a little-endian u32
/** Raised when the layout changes: a file of another version is built again. */
const FORMAT = 1;
const HEADER_BYTES = 40;
const PRECISIONS: Precision[] = ["f32", "i8"];
/** Bytes handed to one write: the values go out in steps, so other file work is not held up behind them. */
const WRITE_STEP = 16 * 1024 * 1024;
/**
 * Bytes asked of one read: a table is read in steps off the event loop (a 333,000-chunk table,
 * 330 MB, held a read on it for 0.5 to 1 s, which a restart's first requests waited behind).
 */
const READ_STEP = 16 * 1024 * 1024;

interface Header {
  dimension: number;
  stride: number;
  precision: Precision;
  rows: number;
  dead: number;
  metaBytes: number;
}

const bytesOf = (a: Int32Array | Float32Array, n: number) => new Uint8Array(a.buffer, a.byteOffset, n * 4);

/** The file's parts after its header, in order: what save writes and load reads back into place. */
function parts(table: VectorTable, rows: number, meta: Uint8Array): Uint8Array[] {
  const stored = table.storedRows(rows);
  return [
    meta,
    bytesOf(table.documentOf, rows),
    bytesOf(table.chunkOf, rows),
    table.alive.subarray(0, rows),
    bytesOf(table.errors, table.precision === "i8" ? rows : 0),
    stored.scales,
    stored.data,
  ];
}

/**
 * Writes `table` with `meta` to `file`: to `file`.tmp, made durable, then renamed over `file`, so
 * that a crash leaves the old file or none, never part of one. The small per-row arrays are copied
 * at the call; the values are written from the table's memory without a copy while the event loop
 * runs on (rows already there are not written again: appends go past them, a removal only marks
 * them), so the file holds the table as it was at the call. One save per file at a time.
 */
export async function saveTable(table: VectorTable, file: string, meta: string): Promise<void> {
  const rows = table.rows;
  const [metaBytes, documentOf, chunkOf, alive, errors, scales, data] = parts(table, rows, Buffer.from(meta, "utf8"));
  const body = [metaBytes, documentOf.slice(), chunkOf.slice(), alive.slice(), errors.slice(), scales, data];
  const header = Buffer.alloc(HEADER_BYTES);
  const fields = [MAGIC, FORMAT, table.dimension, table.stride, PRECISIONS.indexOf(table.precision), rows, table.dead, metaBytes.length];
  fields.forEach((v, i) => header.writeUInt32LE(v, i * 4));
  header.writeDoubleLE(HEADER_BYTES + body.reduce((n, p) => n + p.length, 0), 32);

  const tmp = `${file}.tmp`;
  const out = await fs.promises.open(tmp, "w");
  try {
    for (const part of [header, ...body])
      for (let at = 0; at < part.length;) at += (await out.write(part, at, Math.min(WRITE_STEP, part.length - at))).bytesWritten;
    await out.sync();
  } catch (err) {
    await out.close();
    await fs.promises.rm(tmp, { force: true });
    throw err;
  }
  await out.close();
  await fs.promises.rename(tmp, file);
  await syncDirectory(path.dirname(file));
}

/** Makes a rename in `dir` durable; where a directory cannot be synced (Windows) the rename stands as it is. */
async function syncDirectory(dir: string): Promise<void> {
  try {
    const d = await fs.promises.open(dir, "r");
    try {
      await d.sync();
    } finally {
      await d.close();
    }
  } catch {
    // Not durable past a power cut on such a system: the next save writes it again.
  }
}

/** The header's fields, or null when they do not describe a file of `size` bytes of this format. */
function readHeader(head: Buffer, size: number): Header | null {
  if (head.readUInt32LE(0) !== MAGIC || head.readUInt32LE(4) !== FORMAT) return null;
  const [dimension, stride, code, rows, dead, metaBytes] = [8, 12, 16, 20, 24, 28].map((at) => head.readUInt32LE(at));
  const precision = PRECISIONS[code];
  if (!precision || dimension < 1 || stride < dimension || dead > rows) return null;
  const perRow = 4 + 4 + 1 + (precision === "i8" ? 8 + stride : stride * 4);
  const total = HEADER_BYTES + metaBytes + rows * perRow;
  if (head.readDoubleLE(32) !== total || total !== size) return null;
  return { dimension, stride, precision, rows, dead, metaBytes };
}

/** Fills `into` from `fd` at `position`; false when the file ends first. */
async function readFully(file: fs.promises.FileHandle, into: Uint8Array, position: number): Promise<boolean> {
  for (let at = 0; at < into.length;) {
    const { bytesRead } = await file.read(into, at, Math.min(READ_STEP, into.length - at), position + at);
    if (bytesRead === 0) return false;
    at += bytesRead;
  }
  return true;
}

/**
 * The table saved in `file`, with room for `capacity` rows (at least those it holds) for documents
 * added after, and the meta saved with it. The values are read straight into the new table's
 * memory. Null when the file is missing, unreadable, cut short, of another format or inconsistent
 * (the caller builds the table again). Throws a RangeError when the memory cannot be had.
 */
export async function loadTable(file: string, opts: { capacity?: number } = {}): Promise<{ table: VectorTable; meta: string } | null> {
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(file, "r");
  } catch {
    return null;
  }
  try {
    const h = await headerOf(handle);
    if (!h) return null;
    const table = new VectorTable(h.dimension, Math.max(h.rows, opts.capacity ?? 0), h.precision);
    const meta = table.stride === h.stride ? await readRows(handle, table, h) : null;
    return meta === null ? null : { table, meta };
  } finally {
    await handle.close();
  }
}

/** The header of the open file, or null when it is cut short or does not describe the file. */
async function headerOf(file: fs.promises.FileHandle): Promise<Header | null> {
  try {
    const head = Buffer.alloc(HEADER_BYTES);
    return (await readFully(file, head, 0)) ? readHeader(head, (await file.stat()).size) : null;
  } catch {
    return null; // an error reading (a directory, a failing disk)
  }
}

/** Reads the file's meta and rows into `table`: the meta, or null when they cannot be read or are inconsistent. */
async function readRows(file: fs.promises.FileHandle, table: VectorTable, h: Header): Promise<string | null> {
  try {
    const meta = new Uint8Array(h.metaBytes);
    let at = HEADER_BYTES;
    for (const part of parts(table, h.rows, meta)) {
      if (!(await readFully(file, part, at))) return null;
      at += part.length;
    }
    if (!consistent(table, h)) return null;
    table.adoptRows(h.rows);
    return table.dead === h.dead ? new TextDecoder("utf-8", { fatal: true }).decode(meta) : null;
  } catch {
    return null; // an error reading, or meta that is not UTF-8
  }
}

/** Whether the rows read hold what a table can: alive 0 or 1, chunks not negative, i8 scales and errors finite and not negative. */
function consistent(table: VectorTable, h: Header): boolean {
  for (let r = 0; r < h.rows; r++) if (table.alive[r] > 1 || table.chunkOf[r] < 0) return false;
  if (h.precision === "f32") return true;
  const s = table.storedRows(h.rows).scales;
  const scales = new Float32Array(s.buffer, s.byteOffset, h.rows);
  const fine = (x: number) => Number.isFinite(x) && x >= 0;
  for (let r = 0; r < h.rows; r++) if (!fine(table.errors[r]) || !fine(scales[r])) return false;
  return true;
}
