/**
 * Text → features for the local embedder: tokenizer, stopwords, light stemmer, the hashes that
 * place a feature in the vector, and a reusable count table. Everything here is deterministic and
 * depends on nothing but the text; changing any of it changes the vectors (bump the model version).
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

// prettier-ignore
export const STOPWORDS: ReadonlySet<string> = new Set([
  "a", "about", "above", "after", "again", "all", "also", "am", "an", "and", "any", "are", "as",
  "at", "be", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could",
  "did", "do", "does", "doing", "down", "during", "each", "either", "else", "etc", "ever", "few",
  "for", "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers",
  "herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself",
  "just", "let", "lets", "may", "me", "might", "more", "most", "must", "my", "myself", "no", "nor",
  "not", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "ourselves", "out",
  "over", "own", "same", "she", "should", "so", "some", "such", "than", "that", "the", "their",
  "theirs", "them", "themselves", "then", "there", "these", "they", "this", "those", "through",
  "to", "too", "under", "until", "up", "us", "very", "was", "we", "were", "what", "when", "where",
  "which", "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours",
  "yourself", "yourselves", "im", "ive", "youre", "dont", "doesnt", "didnt", "cant", "wont",
]);

/**
 * Light, deterministic suffix stemmer for ASCII words (others are returned unchanged).
 * Plural s/es/ies, -ied, -ing, -ed (undoubling "resett" → "reset"), -ly, then a final -e, so
 * e.g. take/takes/taking → "tak", charge/charged/charging → "charg", uses/used/using → "us".
 * Not linguistically perfect — it only has to map inflections of a word to the same key.
 */
export function stem(word: string): string {
  const n = word.length;
  if (n < 3 || !isAsciiLowerWord(word)) return word;
  let w = word;
  if (n > 4 && (w.endsWith("ies") || w.endsWith("ied"))) w = w.slice(0, -3) + "y";
  else if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (n > 4 && /(?:x|z|ch|sh)es$/.test(w)) w = w.slice(0, -2);
  else if (n > 3 && w.endsWith("s") && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);

  if (w.length > 4 && w.endsWith("ing") && hasVowel(w, w.length - 3)) {
    w = undouble(w.slice(0, -3));
  } else if (w.length > 3 && w.endsWith("ed") && !w.endsWith("eed") && hasVowel(w, w.length - 2)) {
    w = undouble(w.slice(0, -2));
  } else if (w.length > 5 && w.endsWith("ly")) {
    w = w.slice(0, -2);
  }
  if (w.length >= 3 && w.endsWith("e")) w = w.slice(0, -1);
  return w;
}

function isAsciiLowerWord(w: string): boolean {
  for (let i = 0; i < w.length; i++) {
    const c = w.charCodeAt(i);
    if (c < 0x61 || c > 0x7a) return false;
  }
  return true;
}

function hasVowel(w: string, end: number): boolean {
  for (let i = 0; i < end; i++) {
    const c = w.charCodeAt(i);
    // a e i o u y
    if (c === 0x61 || c === 0x65 || c === 0x69 || c === 0x6f || c === 0x75 || c === 0x79) return true;
  }
  return false;
}

function undouble(w: string): string {
  const n = w.length;
  if (n < 3) return w;
  const c = w.charCodeAt(n - 1);
  if (c !== w.charCodeAt(n - 2)) return w;
  // keep -ll, -ss, -zz (bill, process, buzz) and vowels
  if (c === 0x6c || c === 0x73 || c === 0x7a || "aeiouy".includes(w[n - 1])) return w;
  return w.slice(0, -1);
}

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

const NON_ASCII_WORD_CHAR = /^[\p{L}\p{N}\p{M}]$/u;

function isWordCodePoint(cp: number, ch: string): boolean {
  if (cp < 0x80) {
    return (cp >= 0x61 && cp <= 0x7a) || (cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a);
  }
  return NON_ASCII_WORD_CHAR.test(ch);
}

/** Scripts written without spaces: each character is a token (bigrams then pair them up). */
function isSpacelessScript(cp: number): boolean {
  return (
    (cp >= 0x3040 && cp <= 0x30ff) || // Hiragana, Katakana
    (cp >= 0x3400 && cp <= 0x4dbf) || // CJK Ext A
    (cp >= 0x4e00 && cp <= 0x9fff) || // CJK Unified Ideographs
    (cp >= 0xf900 && cp <= 0xfaff) || // CJK Compatibility Ideographs
    (cp >= 0x20000 && cp <= 0x3134f) // CJK Ext B..G
  );
}

function isApostrophe(cp: number): boolean {
  return cp === 0x27 || cp === 0x2019;
}

/** Punctuation that ends a phrase: no bigram is formed across it. */
function isBreak(cp: number): boolean {
  return cp === 0x2e || cp === 0x21 || cp === 0x3f || cp === 0x3b || cp === 0x3a || cp === 0x0a ||
    cp === 0x3002 || cp === 0xff01 || cp === 0xff1f; // 。！？
}

export interface Token {
  text: string;
  /** a phrase break (sentence punctuation / newline) precedes this token */
  breakBefore: boolean;
}

/** Expects NFKC-normalised, lowercased text. */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let start = -1;
  let hadApostrophe = false;
  let pendingBreak = false;
  const n = text.length;
  const flush = (end: number) => {
    let t = text.slice(start, end);
    if (hadApostrophe) t = t.replace(/['\u2019]/g, "");
    tokens.push({ text: t, breakBefore: pendingBreak });
    pendingBreak = false;
    start = -1;
    hadApostrophe = false;
  };
  for (let i = 0; i < n; ) {
    const cp = text.codePointAt(i)!;
    const len = cp > 0xffff ? 2 : 1;
    if (cp >= 0x80 && isSpacelessScript(cp)) {
      if (start >= 0) flush(i);
      start = i;
      flush(i + len);
    } else if (isWordCodePoint(cp, len === 1 ? text[i] : text.slice(i, i + 2))) {
      if (start < 0) start = i;
    } else if (start >= 0 && isApostrophe(cp) && i + 1 < n && isWordCodePoint(text.charCodeAt(i + 1), text[i + 1])) {
      hadApostrophe = true; // don't → dont, customer's → customers
    } else {
      if (start >= 0) flush(i);
      if (isBreak(cp)) pendingBreak = true;
    }
    i += len;
  }
  if (start >= 0) flush(n);
  return tokens;
}

/**
 * Feature → count table for one text: open addressing over typed arrays, reused across calls
 * (a Map<number, number> was ~3x slower and allocated per entry). Keys are fmix32 outputs,
 * already well mixed, so their low bits pick the slot.
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

