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
  normalize(data: number, rows: number, dim: number): void;
}

const PAGE = 65_536;
/** Rows scored per kernel call: the output area holds four queries' worth of them. */
export const ROWS_PER_CALL = 16_384;
/** The kernel reads 16 floats at a time: rows are padded with zeros to a multiple of 16. */
const padded = (dim: number) => Math.ceil(dim / 16) * 16;

export class VectorTable {
  readonly dimension: number;
  readonly capacity: number;
  /** Rows written so far (removed ones included, until the table is rebuilt). */
  rows = 0;
  /** Rows of documents removed since: skipped by every ranking. */
  dead = 0;
  readonly documentOf: Int32Array;
  readonly chunkOf: Int32Array;
  readonly alive: Uint8Array;
  private readonly runs = new Map<number, { start: number; count: number }[]>();
  private readonly stride: number;
  private readonly memory: WebAssembly.Memory;
  private readonly fn: Kernel;
  private readonly f32: Float32Array;
  private readonly outAt: number;
  private readonly dataAt: number;

  /** Throws a RangeError when the memory cannot be had (more than WebAssembly's 4 GB). */
  constructor(dimension: number, capacity: number) {
    this.dimension = dimension;
    this.capacity = Math.max(1, capacity);
    this.stride = padded(dimension);
    this.outAt = 4 * this.stride * 4;
    this.dataAt = this.outAt + 4 * ROWS_PER_CALL * 4;
    this.memory = new WebAssembly.Memory({ initial: Math.ceil((this.dataAt + this.capacity * this.stride * 4) / PAGE) });
    this.fn = new WebAssembly.Instance(kernel(), { env: { mem: this.memory } }).exports as unknown as Kernel;
    this.f32 = new Float32Array(this.memory.buffer);
    this.documentOf = new Int32Array(this.capacity);
    this.chunkOf = new Int32Array(this.capacity);
    this.alive = new Uint8Array(this.capacity);
  }

  /** Bytes this table takes: its WebAssembly memory and the row index. */
  get bytes(): number {
    return VectorTable.bytesFor(this.dimension, this.capacity);
  }

  /** Bytes a table of this size takes, before it is made. */
  static bytesFor(dimension: number, capacity: number): number {
    const stride = padded(dimension);
    const memory = Math.ceil((4 * stride * 4 + 4 * ROWS_PER_CALL * 4 + Math.max(1, capacity) * stride * 4) / PAGE) * PAGE;
    return memory + Math.max(1, capacity) * 9;
  }

  get live(): number {
    return this.rows - this.dead;
  }

  hasDocument(documentId: number): boolean {
    return this.runs.has(documentId);
  }

  /** Appends a run of consecutive chunks of one document (raw vectors, `count` x dimension), scaled to unit length. */
  append(documentId: number, firstChunk: number, count: number, vectors: Float32Array): void {
    if (this.rows + count > this.capacity) throw new RangeError("vector table full");
    const dim = this.dimension;
    const at = this.dataAt / 4 + this.rows * this.stride;
    if (dim === this.stride) this.f32.set(vectors.subarray(0, count * dim), at);
    else for (let r = 0; r < count; r++) this.f32.set(vectors.subarray(r * dim, (r + 1) * dim), at + r * this.stride);
    this.fn.normalize(at * 4, count, this.stride);
    for (let r = 0; r < count; r++) {
      this.documentOf[this.rows + r] = documentId;
      this.chunkOf[this.rows + r] = firstChunk + r;
      this.alive[this.rows + r] = 1;
    }
    this.runs.set(documentId, [...(this.runs.get(documentId) ?? []), { start: this.rows, count }]);
    this.rows += count;
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
    const t = new VectorTable(this.dimension, capacity);
    for (const [documentId, runs] of this.runs) {
      for (const { start, count } of runs) {
        const from = this.dataAt / 4 + start * this.stride;
        t.f32.set(this.f32.subarray(from, from + count * this.stride), t.dataAt / 4 + t.rows * t.stride);
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
   * Distances of rows [from, from + n) (n at most ROWS_PER_CALL) to each query (unit length,
   * `dimension` floats), written into out[q] at `at`.
   */
  score(queries: Float32Array[], from: number, n: number, out: Float32Array[], at: number): void {
    const q0 = 0;
    const data = this.dataAt + from * this.stride * 4;
    for (let g = 0; g < queries.length; g += 4) {
      const group = queries.slice(g, g + 4);
      this.f32.fill(0, q0, 4 * this.stride);
      group.forEach((q, k) => this.f32.set(q, k * this.stride));
      if (group.length === 1) this.fn.scores1(q0, data, n, this.stride, this.outAt);
      else this.fn.scores4(q0, data, n, this.stride, this.outAt);
      group.forEach((_, k) => out[g + k].set(this.f32.subarray(this.outAt / 4 + k * n, this.outAt / 4 + (k + 1) * n), at));
    }
  }
}

/** A query vector as Chroma receives it (float32), scaled to unit length. */
export function unitQuery(v: number[]): Float32Array {
  const q = Float32Array.from(v);
  let sq = 0;
  for (let i = 0; i < q.length; i++) sq += q[i] * q[i];
  const scale = sq === 0 ? 0 : 1 / Math.sqrt(sq);
  for (let i = 0; i < q.length; i++) q[i] *= scale;
  return q;
}
