/**
 * Words of a chunk as the collision search compares them: numbers, dates, times and prices are
 * masked (a copy whose prices changed still reads as a copy), and kept as written to tell what
 * changed. No React, no I/O.
 */

export type TokenKind = "word" | "number" | "price" | "date" | "time";

export interface Token {
  /** As written. */
  text: string;
  /** Lowercased, or the mask of its kind: what shingles and sentence alignment compare. */
  masked: string;
  kind: TokenKind;
  /** Where it starts in its text. */
  at: number;
}

// Price, date, time, number, word: the first alternative that matches wins.
const TOKEN =
  /([$€£¥]\s?\d[\d,]*(?:\.\d+)?|\d[\d,]*(?:\.\d+)?\s?(?:usd|eur|gbp|dollars?|euros?)\b)|(\d{4}-\d{1,2}-\d{1,2}|\d{1,2}[/.]\d{1,2}[/.]\d{2,4})|(\d{1,2}:\d{2}(?:\s?[ap]\.?m\b\.?)?)|(\d+(?:[.,]\d+)*(?:st|nd|rd|th)?%?)|([\p{L}_][\p{L}\p{N}_]*(?:[.'-][\p{L}\p{N}_]+)*)/giu;

const MONTHS = new Set(
  "january february march april june july august september october november december jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday sunday".split(
    " ",
  ),
);
const MASK: Record<TokenKind, string> = { word: "", number: "<num>", price: "<price>", date: "<date>", time: "<time>" };

export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  for (const m of text.matchAll(TOKEN)) {
    const kind: TokenKind = m[1] ? "price" : m[2] ? "date" : m[3] ? "time" : m[4] ? "number" : "word";
    const lower = m[0].toLowerCase();
    const month = kind === "word" && MONTHS.has(lower);
    out.push({ text: m[0], masked: month ? MASK.date : kind === "word" ? lower : MASK[kind], kind: month ? "date" : kind, at: m.index });
  }
  // "May" is a month only beside a number ("May 3", "3 May").
  out.forEach((t, i) => {
    if (t.masked === "may" && (out[i - 1]?.kind === "number" || out[i + 1]?.kind === "number")) {
      t.kind = "date";
      t.masked = MASK.date;
    }
  });
  return out;
}

/** 32-bit FNV-1a, finished with murmur3's mix so that nearby inputs spread over all bits. */
export function hash32(s: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return mix32(h);
}

export function mix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Words per shingle: three keep a sentence's word order while a changed word spoils only three shingles. */
export const SHINGLE_WORDS = 3;

/**
 * The distinct shingles of masked tokens, as sorted 32-bit hashes. `cache` keeps token hashes
 * across chunks (a vocabulary is small beside a corpus).
 */
export function shingles(tokens: Token[], cache: Map<string, number>): Uint32Array {
  const hashes = tokens.map((t) => {
    let h = cache.get(t.masked);
    if (h === undefined) cache.set(t.masked, (h = hash32(t.masked)));
    return h;
  });
  const n = Math.max(0, hashes.length - SHINGLE_WORDS + 1);
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    let h = hashes[i];
    for (let k = 1; k < SHINGLE_WORDS; k++) h = Math.imul(h ^ hashes[i + k], 0x01000193) + k;
    out[i] = mix32(h);
  }
  out.sort();
  let w = 0;
  for (let i = 0; i < out.length; i++) if (i === 0 || out[i] !== out[w - 1]) out[w++] = out[i];
  return out.slice(0, w);
}

/** Jaccard similarity of two sorted sets of hashes. */
export function jaccard(a: Uint32Array, b: Uint32Array): number {
  let i = 0;
  let j = 0;
  let both = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      both++;
      i++;
      j++;
    } else if (a[i] < b[j]) i++;
    else j++;
  }
  const union = a.length + b.length - both;
  return union === 0 ? 0 : both / union;
}

/** A text's sentences: a stop, question or exclamation mark before a space ends one, and so does a line break. */
export const sentences = (text: string): string[] =>
  text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter(Boolean);
