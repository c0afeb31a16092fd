import { contentTokens } from "../embeddings/local/tokenizer";
import { stem } from "../embeddings/local/stemmer";

/**
 * The words the rerank features compare: a text's content words, stemmed (the local embedder's
 * tokenizer and stemmer, so "refunds" meets "refund"), and its word pairs. Pure and
 * deterministic: the same text gives the same words whatever the embedding provider.
 */

export interface Words {
  stems: string[];
  /** Adjacent content words, joined with a space (no pair across a sentence break). */
  bigrams: string[];
}

/** Stems by word, bounded: the stemmer is pure, and a pool's chunks share most of their words. */
const STEMS_KEPT = 50_000;
const stemByWord = new Map<string, string>();

function stemOf(word: string): string {
  let found = stemByWord.get(word);
  if (found === undefined) {
    if (stemByWord.size >= STEMS_KEPT) stemByWord.clear();
    found = stem(word);
    stemByWord.set(word, found);
  }
  return found;
}

export function wordsOf(text: string): Words {
  const tokens = contentTokens(text);
  const stems = tokens.map((t) => stemOf(t.text));
  const bigrams: string[] = [];
  for (let i = 1; i < tokens.length; i++) if (!tokens[i].breakBefore) bigrams.push(`${stems[i - 1]} ${stems[i]}`);
  return { stems, bigrams };
}

/** The distinct stems of a text. */
export const stemSet = (text: string): Set<string> => new Set(wordsOf(text).stems);

/** A filename's words: "reset-password_guide.md" → reset, password, guide. */
export const filenameWords = (filename: string): Set<string> => stemSet(filename.replace(/\.[a-z0-9]+$/i, "").replace(/[-_.]+/g, " "));

/** The heading lines of a chunk's text (Markdown `#` lines), joined. */
export const headingsOf = (text: string): string =>
  text
    .split("\n")
    .filter((l) => /^\s{0,3}#{1,6}\s/.test(l))
    .join("\n");

/** What the rerankers compare of one chunk's text: its distinct stems, its stems in order, and its headings' stems. */
export interface ChunkWords {
  stems: Set<string>;
  /** The content words' stems in order, and where a phrase break precedes one (no word pair across it). */
  sequence: string[];
  breaks: boolean[];
  headings: Set<string>;
}

/**
 * Chunks read lately, by text: a search reads the same chunks again and again (the pool of a
 * question asked twice, the chunks near the top for a topic), and a chunk's words change only
 * with its text. Bounded so that it stays a few megabytes; the least recently used go first.
 */
const CHUNKS_KEPT = 2_000;
const chunks = new Map<string, ChunkWords>();

export function chunkWords(text: string): ChunkWords {
  const kept = chunks.get(text);
  if (kept) {
    chunks.delete(text);
    chunks.set(text, kept);
    return kept;
  }
  const tokens = contentTokens(text);
  const sequence = tokens.map((t) => stemOf(t.text));
  const headings = headingsOf(text);
  const found: ChunkWords = {
    stems: new Set(sequence),
    sequence,
    breaks: tokens.map((t) => t.breakBefore),
    headings: headings ? stemSet(headings) : new Set<string>(),
  };
  if (chunks.size >= CHUNKS_KEPT) chunks.delete(chunks.keys().next().value!);
  chunks.set(text, found);
  return found;
}

/**
 * How many of a question's distinct word pairs (`bigrams`, as wordsOf gives them) a chunk has:
 * the chunk's pairs are formed only where their first word starts one of the question's.
 */
export function sharedBigrams(chunk: ChunkWords, bigrams: Set<string>): number {
  if (bigrams.size === 0) return 0;
  const firsts = new Set([...bigrams].map((b) => b.slice(0, b.indexOf(" "))));
  const found = new Set<string>();
  const { sequence, breaks } = chunk;
  for (let i = 1; i < sequence.length; i++) {
    if (breaks[i] || !firsts.has(sequence[i - 1])) continue;
    const pair = `${sequence[i - 1]} ${sequence[i]}`;
    if (bigrams.has(pair)) found.add(pair);
  }
  return found.size;
}
