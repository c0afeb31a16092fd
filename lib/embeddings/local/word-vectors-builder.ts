import fs from "node:fs";
import path from "node:path";
import { HEADER_BYTES, MAGIC, WORD_CHARS, WORD_VECTORS_FORMAT, WordVectorsError, hashWord, sectionLayout } from "./word-vectors";

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

  /** Whether add() would keep this word: a token can equal it, and its rank is within the recipe. */
  accepts(word: string, rank: number): boolean {
    if (this.recipe && rank >= this.recipe.maxRank) return false;
    return WORD_CHARS.test(word) && word === word.normalize("NFKC").toLowerCase();
  }

  /** Counts a source word without keeping it, so that ranks and sourceWords stay meaningful. */
  count(rank: number): void {
    this.sourceWords = Math.max(this.sourceWords, rank + 1);
  }

  /** Adds a word with its source rank; returns false (and only counts it) when accepts() says no. */
  add(word: string, rank: number, vector: ArrayLike<number>): boolean {
    this.count(rank);
    if (!this.accepts(word, rank)) return false;
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
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    fs.writeFileSync(tmp, bytes);
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}
