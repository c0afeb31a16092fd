import { KERNEL_WASM } from "./exact-kernel-wasm";

/**
 * Chunk vectors in WebAssembly memory for exact ranking, scored by a SIMD kernel
 * (exact-kernel.wat): several times faster than a JavaScript loop, and faster again per query
 * four at a time (measured in docs/performance.md, 'Exact ranking, measured'). Rows are unit
 * length, so a cosine distance is 1 - a dot product, summed in float32 as Chroma sums it.
 */

let compiled: WebAssembly.Module | undefined;
const kernel = () => (compiled ??= new WebAssembly.Module(Buffer.from(KERNEL_WASM, "base64")));

interface Kernel {
  scores1(q: number, data: number, rows: number, dim: number, out: number): void;
  scores4(q: number, data: number, rows: number, dim: number, out: number): void;
  scoresI8(q: number, data: number, scales: number, rows: number, dim: number, qs: number, out: number): void;
  scores4I8(
    q: number,
    data: number,
    scales: number,
    rows: number,
    dim: number,
    qs0: number,
    qs1: number,
    qs2: number,
    qs3: number,
    out: number,
  ): void;
  normalize(data: number, rows: number, dim: number): void;
  quantizeI8(src: number, rows: number, dim: number, data: number, scales: number, errors: number): void;
}

/**
 * How a table stores its rows: `f32`, the vectors as Chroma holds them (exact distances); `i8`,
 * each unit row as signed bytes times a scale of its own (a quarter of the memory), whose
 * distances are approximate within a bound known per row (errorBound), for a compact table that
 * picks the candidates an exact scoring then ranks (lib/retrieval/compact.ts).
 */
export type Precision = "f32" | "i8";

/** The largest byte value of a quantized component. */
const I8_MAX = 127;

/**
 * The largest value of a quantized query's component for rows of `stride` components: as fine as
 * the kernel's i16 lanes allow while its i32 sums cannot overflow. A dot product of integer
 * vectors is at most the product of their lengths (and so is any part of it the kernel sums), and
 * those are at most I8_MAX * sqrt(stride) and limit * sqrt(stride): 16,512 at 1,024 components,
 * 5,504 at 3,072. Against a query rounded to int8 like the rows, the query's error (0.007 to 0.010
 * at 1,024 components) no longer adds to every row's bound (under 1e-4 now), and several times
 * fewer rows are re-scored: the bound is the row's own error.
 */
export const queryLimit = (stride: number): number => Math.min(32_767, Math.floor(0x7fff_ffff / (I8_MAX * stride)));

/** A unit query as the i8 kernel takes it: i16 values up to queryLimit, their scale, and how far the scaled values are from the query (Euclidean). */
export interface QuantizedQuery {
  values: Int16Array;
  scale: number;
  error: number;
}

/**
 * Rounds `v` scaled to unit length to integers of at most `limit` (int8 for a table's rows, finer
 * for a query: queryLimit) times one scale, written into `out` from `at`,
 * with the Euclidean size of the rounding (against the unit vector in float64; the float32 one
 * the exact scoring uses is within FLOAT_SUMS of it). A table's rows are rounded the same way by
 * the kernel (quantizeI8, several times faster: `npm run bench:exact -- --table`); this one rounds a
 * query, and is what the kernel is tested and measured against.
 */
export function quantizeRow(v: Float32Array, out: Int8Array | Int16Array, at: number, limit = I8_MAX): { scale: number; error: number } {
  let max = 0;
  let sq = 0;
  for (let i = 0; i < v.length; i++) {
    max = Math.max(max, Math.abs(v[i]));
    sq += v[i] * v[i];
  }
  if (max === 0) {
    out.fill(0, at, at + v.length);
    return { scale: 0, error: 0 };
  }
  const norm = Math.sqrt(sq);
  const scale = Math.fround(max / norm / limit);
  const inv = 1 / (scale * norm);
  let err = 0;
  for (let i = 0; i < v.length; i++) {
    const b = Math.max(-limit, Math.min(limit, Math.round(v[i] * inv)));
    out[at + i] = b;
    const e = v[i] / norm - b * scale;
    err += e * e;
  }
  // Rounded up a little: the bound must not be below the error it bounds.
  return { scale, error: Math.sqrt(err) * (1 + 1e-6) };
}

export function quantizeQuery(q: Float32Array): QuantizedQuery {
  const values = new Int16Array(q.length);
  const { scale, error } = quantizeRow(q, values, 0, queryLimit(padded(q.length)));
  return { values, scale, error };
}

const PAGE = 65_536;
/** Rows scored per kernel call: the output area holds four queries' worth of them. */
export const ROWS_PER_CALL = 16_384;
/** The kernel reads 16 floats (or bytes) at a time: rows are padded with zeros to a multiple of 16. */
const padded = (dim: number) => Math.ceil(dim / 16) * 16;
const align16 = (n: number) => Math.ceil(n / 16) * 16;

/** Where a table's parts lie in its WebAssembly memory, and the bytes the memory takes. */
function layout(dimension: number, capacity: number, precision: Precision) {
  const stride = padded(dimension);
  const cap = Math.max(1, capacity);
  // The query area holds four queries, float32 or i16 values, scored in one pass over the rows.
  const outAt = precision === "f32" ? 4 * stride * 4 : align16(4 * stride * 2);
  // The output area also stages float32 rows on their way to bytes, each with its error: one at least.
  const outBytes = Math.max(4 * ROWS_PER_CALL * 4, align16(stride * 4 + 4));
  const stageRows = Math.floor(outBytes / (stride * 4 + 4));
  const scalesAt = outAt + outBytes;
  const dataAt = precision === "f32" ? scalesAt : align16(scalesAt + cap * 4);
  const end = dataAt + cap * stride * (precision === "f32" ? 4 : 1);
  return { stride, outAt, stageRows, scalesAt, dataAt, memory: Math.ceil(end / PAGE) * PAGE };
}

export class VectorTable {
  readonly dimension: number;
  readonly capacity: number;
  readonly precision: Precision;
  /** Rows written so far (removed ones included, until the table is rebuilt). */
  rows = 0;
  /** Rows of documents removed since: skipped by every ranking. */
  dead = 0;
  readonly documentOf: Int32Array;
  readonly chunkOf: Int32Array;
  readonly alive: Uint8Array;
  /** i8: per row, how far its stored value is from the unit row (Euclidean); empty for f32. */
  readonly errors: Float32Array;
  /** Floats (f32) or bytes (i8) a row takes: the dimension padded for the kernel. */
  readonly stride: number;
  private readonly runs = new Map<number, { start: number; count: number }[]>();
  private readonly memory: WebAssembly.Memory;
  private readonly fn: Kernel;
  private readonly f32: Float32Array;
  private readonly i8: Int8Array;
  private readonly i16: Int16Array;
  private readonly outAt: number;
  private readonly stageRows: number;
  private readonly scalesAt: number;
  private readonly dataAt: number;

  /** Throws a RangeError when the memory cannot be had (more than WebAssembly's 4 GB). */
  constructor(dimension: number, capacity: number, precision: Precision = "f32") {
    this.dimension = dimension;
    this.capacity = Math.max(1, capacity);
    this.precision = precision;
    const at = layout(dimension, capacity, precision);
    this.stride = at.stride;
    this.outAt = at.outAt;
    this.stageRows = at.stageRows;
    this.scalesAt = at.scalesAt;
    this.dataAt = at.dataAt;
    this.memory = new WebAssembly.Memory({ initial: at.memory / PAGE });
    this.fn = new WebAssembly.Instance(kernel(), { env: { mem: this.memory } }).exports as unknown as Kernel;
    this.f32 = new Float32Array(this.memory.buffer);
    this.i8 = new Int8Array(this.memory.buffer);
    this.i16 = new Int16Array(this.memory.buffer);
    this.documentOf = new Int32Array(this.capacity);
    this.chunkOf = new Int32Array(this.capacity);
    this.alive = new Uint8Array(this.capacity);
    this.errors = new Float32Array(precision === "i8" ? this.capacity : 0);
  }

  /** Bytes this table takes: its WebAssembly memory and the row index. */
  get bytes(): number {
    return VectorTable.bytesFor(this.dimension, this.capacity, this.precision);
  }

  /** Bytes a table of this size takes, before it is made. */
  static bytesFor(dimension: number, capacity: number, precision: Precision = "f32"): number {
    return layout(dimension, capacity, precision).memory + Math.max(1, capacity) * (precision === "i8" ? 13 : 9);
  }

  get live(): number {
    return this.rows - this.dead;
  }

  hasDocument(documentId: number): boolean {
    return this.runs.has(documentId);
  }

  /** The rows of these documents as [start, count] ranges, in row order, adjacent ones joined. */
  rangesOf(documents: Set<number>): [number, number][] {
    const runs: { start: number; count: number }[] = [];
    if (documents.size < this.runs.size) {
      for (const id of documents) for (const r of this.runs.get(id) ?? []) runs.push(r);
    } else {
      for (const [id, rs] of this.runs) if (documents.has(id)) runs.push(...rs);
    }
    runs.sort((a, b) => a.start - b.start);
    const out: [number, number][] = [];
    for (const r of runs) {
      const last = out.at(-1);
      if (last && last[0] + last[1] === r.start) last[1] += r.count;
      else out.push([r.start, r.count]);
    }
    return out;
  }

  /** Appends a run of consecutive chunks of one document (raw vectors, `count` x dimension), scaled to unit length. */
  append(documentId: number, firstChunk: number, count: number, vectors: Float32Array): void {
    if (this.rows + count > this.capacity) throw new RangeError("vector table full");
    if (this.precision === "f32") {
      const at = this.dataAt / 4 + this.rows * this.stride;
      this.put(vectors, 0, count, at);
      this.fn.normalize(at * 4, count, this.stride);
    } else {
      // Staged in the output area a batch at a time, quantized there by the kernel.
      const errorsAt = this.outAt + this.stageRows * this.stride * 4;
      for (let r = 0; r < count; r += this.stageRows) {
        const n = Math.min(this.stageRows, count - r);
        const row = this.rows + r;
        this.put(vectors, r, n, this.outAt / 4);
        this.fn.quantizeI8(this.outAt, n, this.stride, this.dataAt + row * this.stride, this.scalesAt + row * 4, errorsAt);
        this.errors.set(this.f32.subarray(errorsAt / 4, errorsAt / 4 + n), row);
      }
    }
    for (let r = 0; r < count; r++) {
      this.documentOf[this.rows + r] = documentId;
      this.chunkOf[this.rows + r] = firstChunk + r;
      this.alive[this.rows + r] = 1;
    }
    this.runs.set(documentId, [...(this.runs.get(documentId) ?? []), { start: this.rows, count }]);
    this.rows += count;
  }

  /** Writes rows [from, from + n) of `vectors` as float32 rows of `stride` from float index `at`, padded with zeros. */
  private put(vectors: Float32Array, from: number, n: number, at: number): void {
    const dim = this.dimension;
    if (dim === this.stride) {
      this.f32.set(vectors.subarray(from * dim, (from + n) * dim), at);
      return;
    }
    // The padding may hold what was there before (the staging area is also the scores' output).
    this.f32.fill(0, at, at + n * this.stride);
    for (let r = 0; r < n; r++) this.f32.set(vectors.subarray((from + r) * dim, (from + r + 1) * dim), at + r * this.stride);
  }

  /** Empties the table for rows of other documents, keeping its memory (a streamed scan's next page). */
  clear(): void {
    this.rows = 0;
    this.dead = 0;
    this.runs.clear();
  }

  remove(documentId: number): void {
    for (const { start, count } of this.runs.get(documentId) ?? []) {
      this.alive.fill(0, start, start + count);
      this.dead += count;
    }
    this.runs.delete(documentId);
  }

  /** A table of `capacity` rows holding this one's live rows (already unit length), in order. */
  compacted(capacity: number): VectorTable {
    const t = new VectorTable(this.dimension, capacity, this.precision);
    const rowBytes = this.precision === "f32" ? this.stride * 4 : this.stride;
    const bytes = new Uint8Array(this.memory.buffer);
    const into = new Uint8Array(t.memory.buffer);
    for (const [documentId, runs] of this.runs) {
      for (const { start, count } of runs) {
        into.set(bytes.subarray(this.dataAt + start * rowBytes, this.dataAt + (start + count) * rowBytes), t.dataAt + t.rows * rowBytes);
        if (this.precision === "i8") {
          t.f32.set(this.f32.subarray(this.scalesAt / 4 + start, this.scalesAt / 4 + start + count), t.scalesAt / 4 + t.rows);
          t.errors.set(this.errors.subarray(start, start + count), t.rows);
        }
        t.documentOf.set(this.documentOf.subarray(start, start + count), t.rows);
        t.chunkOf.set(this.chunkOf.subarray(start, start + count), t.rows);
        t.alive.fill(1, t.rows, t.rows + count);
        t.runs.set(documentId, [...(t.runs.get(documentId) ?? []), { start: t.rows, count }]);
        t.rows += count;
      }
    }
    return t;
  }

  /**
   * Views of the WebAssembly memory holding rows [0, rows): their scales (empty for f32) and their
   * values. A table file is written from them and read into them (table-file.ts); rows below
   * `rows` are not written again until clear(), so a save reads them while the table serves and grows.
   */
  storedRows(rows = this.rows): { scales: Uint8Array; data: Uint8Array } {
    const rowBytes = this.precision === "f32" ? this.stride * 4 : this.stride;
    return {
      scales: new Uint8Array(this.memory.buffer, this.scalesAt, this.precision === "i8" ? rows * 4 : 0),
      data: new Uint8Array(this.memory.buffer, this.dataAt, rows * rowBytes),
    };
  }

  /**
   * Takes rows [0, rows) as filled in documentOf, chunkOf, alive, errors and storedRows() (a table
   * read from its file): counts the removed ones and finds each document's runs again, a run being
   * consecutive live rows of one document with consecutive chunks.
   */
  adoptRows(rows: number): void {
    this.clear();
    let run: { start: number; count: number } | null = null;
    for (let r = 0; r < rows; r++) {
      if (!this.alive[r]) {
        this.dead++;
        run = null;
      } else if (run && this.documentOf[r] === this.documentOf[r - 1] && this.chunkOf[r] === this.chunkOf[r - 1] + 1) {
        run.count++;
      } else {
        run = { start: r, count: 1 };
        const runs = this.runs.get(this.documentOf[r]);
        if (runs) runs.push(run);
        else this.runs.set(this.documentOf[r], [run]);
      }
    }
    this.rows = rows;
  }

  /**
   * Distances of rows [from, from + n) (n at most ROWS_PER_CALL) to each query (unit length,
   * `dimension` floats), written into out[q] at `at`. An i8 table's are approximate: within
   * errorBound of the exact ones.
   */
  score(queries: Float32Array[], from: number, n: number, out: Float32Array[], at: number): void {
    // Its one range's distances land at `at`.
    this.scoreRanges(queries, [[from, n]], out, at - from);
  }

  /**
   * score() over several ranges of rows ([start, count], each within ROWS_PER_CALL), the queries
   * loaded once for all of them: a filtered scan scores many short runs of rows, where loading
   * the queries for each would cost more than the scoring.
   */
  scoreRanges(queries: Float32Array[], ranges: [number, number][], out: Float32Array[], at: number): void {
    // Four queries a pass: a batch reads the rows a quarter as often as one query at a time would.
    for (let g = 0; g < queries.length; g += 4) {
      const group = queries.slice(g, g + 4);
      const scoreRows = this.load(group);
      for (const [start, n] of ranges) {
        scoreRows(start, n);
        group.forEach((_, k) => out[g + k].set(this.f32.subarray(this.outAt / 4 + k * n, this.outAt / 4 + (k + 1) * n), at + start));
      }
    }
  }

  /**
   * Puts up to four queries in the query area (an i8 table's quantized), the places left empty
   * zeros; returns the kernel call that scores rows [start, start + n) against them into the
   * output area, query k's from n * k. One query alone takes the one-query kernel, which is faster
   * for it than four with three empty; both give the same distances.
   */
  private load(group: Float32Array[]): (start: number, n: number) => void {
    const { fn, stride, outAt } = this;
    if (this.precision === "f32") {
      this.f32.fill(0, 0, 4 * stride);
      group.forEach((q, k) => this.f32.set(q, k * stride));
      const kernel = group.length === 1 ? fn.scores1 : fn.scores4;
      return (start, n) => kernel(0, this.dataAt + start * stride * 4, n, stride, outAt);
    }
    this.i16.fill(0, 0, 4 * stride);
    const limit = queryLimit(stride);
    const [s0, s1 = 0, s2 = 0, s3 = 0] = group.map((q, k) => quantizeRow(q, this.i16, k * stride, limit).scale);
    const rows = (start: number) => this.dataAt + start * stride;
    const scales = (start: number) => this.scalesAt + start * 4;
    if (group.length === 1) return (start, n) => fn.scoresI8(0, rows(start), scales(start), n, stride, s0, outAt);
    return (start, n) => fn.scores4I8(0, rows(start), scales(start), n, stride, s0, s1, s2, s3, outAt);
  }

  /**
   * How far an i8 table's distance of `row` can be from the exact one for a query whose
   * quantized form is off by `queryError`: |q.x - q'.x'| <= |q.(x - x')| + |(q - q').x'|, with
   * |q| = 1 and |x'| <= 1 + the row's error, plus the float32 sums of the exact scoring (0 for f32).
   */
  errorBound(row: number, queryError: number): number {
    if (this.precision === "f32") return 0;
    const e = this.errors[row];
    return e + queryError * (1 + e) + FLOAT_SUMS;
  }
}

/**
 * What the float32 sums of an exact scoring can be off by, with room: 1,024 products of at most 1
 * in total, added in 16 lanes of 64 steps, at float32's 6e-8 a step (about 4e-6).
 */
const FLOAT_SUMS = 1e-4;

/** A query vector as Chroma receives it (float32), scaled to unit length. */
export function unitQuery(v: ArrayLike<number>): Float32Array {
  const q = Float32Array.from(v);
  let sq = 0;
  for (let i = 0; i < q.length; i++) sq += q[i] * q[i];
  const scale = sq === 0 ? 0 : 1 / Math.sqrt(sq);
  for (let i = 0; i < q.length; i++) q[i] *= scale;
  return q;
}
