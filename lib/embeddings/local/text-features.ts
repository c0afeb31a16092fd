/**
 * Feature hashing for the local embedder: the hashes that turn a content word, word pair or
 * character n-gram into a feature key and place it in the vector, and a reusable count table.
 * Deterministic; changing any of it changes the vectors (bump the model version).
 */

/** Character n-grams of each content word. */
const MIN_NGRAM = 3;
const MAX_NGRAM = 5;
/** Longer "words" (URLs, hashes, base64…) only contribute n-grams from their first chars. */
const MAX_NGRAM_WORD_LENGTH = 32;

export const SEED_WORD = 0x1b873593;
export const SEED_BIGRAM = 0x2f6b1d45;
const SEED_CHARGRAM = 0x5c3e9a17;
export const SEED_SIGN = 0x68e31da4;
export const SEED_PROBE2 = 0x3c6ef372;
/** Probe p >= 2 of a feature hashes h ^ (p · SEED_PROBE_STEP). */
export const SEED_PROBE_STEP = 0x7f4a7c15;
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
/** Word-boundary markers for character n-grams; never occur inside a token. */
const BOUNDARY_START = 0x02;
const BOUNDARY_END = 0x03;

/**
 * murmur3 32-bit finaliser: spreads FNV-1a's weak high bits over the whole word.
 * Returns a signed int32 (stays a small integer in V8: faster Map keys and arithmetic).
 */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}

/** Maps a well-mixed 32-bit hash to [0, size) from its top 16 bits (multiply-shift). */
export function bucket(h: number, size: number): number {
  return ((h >>> 16) * size) >>> 16;
}

export function fnv1a(s: string, seed: number): number {
  let h = FNV_OFFSET ^ seed;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, FNV_PRIME);
  }
  return h | 0;
}

/**
 * Feature → count table for one text: open addressing over typed arrays, reused across calls
 * (a Map<number, number> was several times slower and allocated per entry: docs/performance.md,
 * 'Figures behind the code's choices'). Keys are fmix32 outputs, already well mixed, so their
 * low bits pick the slot.
 */
export class CountTable {
  keys: Int32Array;
  counts: Int32Array;
  /** Slot `i` is in use iff stamps[i] === generation; bumping the generation clears the table. */
  private stamps: Uint32Array;
  /** Occupied slots in insertion order (for iteration). */
  slots: Int32Array;
  size = 0;
  private generation = 1;
  private mask: number;

  constructor(capacity: number) {
    this.keys = new Int32Array(capacity);
    this.counts = new Int32Array(capacity);
    this.stamps = new Uint32Array(capacity);
    this.slots = new Int32Array(capacity);
    this.mask = capacity - 1;
  }

  clear(): void {
    this.size = 0;
    if (++this.generation === 0xffffffff) {
      this.stamps.fill(0);
      this.generation = 1;
    }
  }

  /** Adds `n` (default 1; may be negative) to the count of `key`. */
  add(key: number, n = 1): void {
    if (this.size * 2 >= this.keys.length) this.grow();
    const { keys, stamps, mask, generation } = this;
    let i = key & mask;
    while (stamps[i] === generation) {
      if (keys[i] === key) {
        this.counts[i] += n;
        return;
      }
      i = (i + 1) & mask;
    }
    stamps[i] = generation;
    keys[i] = key;
    this.counts[i] = n;
    this.slots[this.size++] = i;
  }

  /** The count of `key`; 0 when absent. */
  get(key: number): number {
    const { keys, stamps, mask, generation } = this;
    let i = key & mask;
    while (stamps[i] === generation) {
      if (keys[i] === key) return this.counts[i];
      i = (i + 1) & mask;
    }
    return 0;
  }

  /** Doubles the capacity (load factor ≤ 1/2), keeping insertion order. */
  private grow(): void {
    const { keys, counts, slots, size } = this;
    const capacity = keys.length * 2;
    this.keys = new Int32Array(capacity);
    this.counts = new Int32Array(capacity);
    this.stamps = new Uint32Array(capacity);
    this.slots = new Int32Array(capacity);
    this.mask = capacity - 1;
    this.generation = 1;
    this.size = 0;
    for (let k = 0; k < size; k++) {
      const old = slots[k];
      this.add(keys[old]);
      this.counts[this.slots[k]] = counts[old];
    }
  }
}

/** Character 3..5-grams of "⟨word⟩", hashed straight from the char codes (no substrings). */
export function addCharNgrams(tf: CountTable, word: string): void {
  const len = Math.min(word.length, MAX_NGRAM_WORD_LENGTH);
  const padded = len + 2;
  const codeAt = (p: number) => (p === 0 ? BOUNDARY_START : p === padded - 1 ? BOUNDARY_END : word.charCodeAt(p - 1));
  for (let startPos = 0; startPos + MIN_NGRAM <= padded; startPos++) {
    let h = FNV_OFFSET ^ SEED_CHARGRAM;
    for (let p = startPos; p < startPos + MAX_NGRAM && p < padded; p++) {
      h ^= codeAt(p);
      h = Math.imul(h, FNV_PRIME);
      const n = p - startPos + 1;
      if (n >= MIN_NGRAM) tf.add(fmix32(h ^ n));
    }
  }
}
