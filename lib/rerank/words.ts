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

export function wordsOf(text: string): Words {
  const tokens = contentTokens(text);
  const stems = tokens.map((t) => stem(t.text));
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
