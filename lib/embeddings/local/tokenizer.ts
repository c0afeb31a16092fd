/**
 * Text → content tokens for the local embedder: tokenizer and stopwords. Deterministic and
 * dependent on nothing but the text; changing any of it changes the vectors (bump the model version).
 */

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
  return (
    cp === 0x2e ||
    cp === 0x21 ||
    cp === 0x3f ||
    cp === 0x3b ||
    cp === 0x3a ||
    cp === 0x0a ||
    cp === 0x3002 ||
    cp === 0xff01 ||
    cp === 0xff1f
  ); // 。！？
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
  for (let i = 0; i < n;) {
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
 * The tokens a text's features are made from: its words without stopwords; all its words when it
 * has only stopwords ("to be or not to be"); the whole trimmed string when it has no word at all
 * ("???", "→"); nothing for empty or whitespace-only text.
 */
export function contentTokens(text: string): Token[] {
  const normalized = (text ?? "").normalize("NFKC").toLowerCase();
  const tokens = tokenize(normalized);
  const content = tokens.filter((t) => !STOPWORDS.has(t.text));
  if (content.length > 0) return content;
  if (tokens.length > 0) return tokens;
  const trimmed = normalized.trim();
  return trimmed === "" ? [] : [{ text: trimmed, breakBefore: false }];
}
