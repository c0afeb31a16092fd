import { TableLayout, tableRowsAsPairs } from "./tables";

export interface Chunk {
  index: number;
  /** Character offsets into the document text, end exclusive. */
  start: number;
  end: number;
  text: string;
  /**
   * The header line(s) of a table whose rows the chunk holds without them (lib/core/tables.ts):
   * keyword-indexed before its text and naming the cells of its rows where it is embedded
   * (embeddedText), so its rows are found by their column names; not part of `text`.
   */
  context?: string;
  /**
   * Questions this chunk answers, attached by an editor (lib/ingest/curate.ts): indexed with its
   * text, for the vectors and the keywords alike; a result still shows the chunk's own text.
   */
  questions?: string[];
}

type IndexedChunk = { text: string; context?: string | null; questions?: string[] | null };

const withQuestions = (text: string, c: IndexedChunk) => (c.questions?.length ? `${text}\n\n${c.questions.join("\n")}` : text);

/** What a chunk is keyword-indexed by (INDEXED_TEXT_SQL in lib/db/keyword-index.ts): its table's header, its text, then the questions it answers. */
export function indexedText(c: IndexedChunk): string {
  return withQuestions(c.context ? `${c.context}\n${c.text}` : c.text, c);
}

/**
 * What a chunk is embedded by, on every path that writes its vector: its indexed text with each
 * table row whose header it knows written as "column: value" pairs (`Plan: Team; Price: $20`,
 * lib/core/tables.ts), the questions after it. `npm run bench:tables` measured vector recall@3 on
 * questions naming a row and a column at 0.958 this way against 0.700 with the header once before
 * pipe rows, while the keyword index did better on the pipe rows (BM25 0.758 against 0.717), so
 * the keyword index keeps indexedText. A chunk without such a table embeds as its indexed text.
 */
export function embeddedText(c: IndexedChunk): string {
  const pairs = tableRowsAsPairs(c.text, c.context);
  return pairs === null ? indexedText(c) : withQuestions(pairs, c);
}

/**
 * `boundary`: chunks end at the largest boundary that fits (blank line or heading, then
 * sentence end, then line, then word) and start at a word; `fixed`: plain character windows,
 * which cut words in half (kept for documents and settings that depend on them).
 */
export const CHUNK_STRATEGIES = ["boundary", "fixed"] as const;
export type ChunkStrategy = (typeof CHUNK_STRATEGIES)[number];

export const DEFAULT_CHUNK_SIZE = 800;
export const DEFAULT_CHUNK_OVERLAP = 100;
export const DEFAULT_CHUNK_STRATEGY: ChunkStrategy = "boundary";

/** How a document is chunked, as the upload and re-index forms and the pipeline pass it around. */
export interface ChunkSettings {
  chunkSize: number;
  chunkOverlap: number;
  /** DEFAULT_CHUNK_STRATEGY when not given. */
  chunkStrategy?: ChunkStrategy;
}

export const STRATEGY_LABELS: Record<ChunkStrategy, string> = {
  boundary: "at boundaries (paragraph, sentence, word)",
  fixed: "fixed windows (cuts words)",
};

/** Throws unless 0 <= overlap < size: otherwise the window would never advance. */
export function assertChunkSettings(size: number, overlap: number): void {
  if (!Number.isInteger(size) || !Number.isInteger(overlap)) {
    throw new RangeError("Chunk size and overlap must be whole numbers.");
  }
  if (overlap < 0 || size <= overlap) {
    throw new RangeError(`Chunk overlap must be at least 0 and smaller than the chunk size (got size ${size}, overlap ${overlap}).`);
  }
}

/** Splits a document's text into chunks of at most `size` characters, consecutive ones sharing at most `overlap`. */
export function chunkText(
  text: string,
  size = DEFAULT_CHUNK_SIZE,
  overlap = DEFAULT_CHUNK_OVERLAP,
  strategy: ChunkStrategy = DEFAULT_CHUNK_STRATEGY,
): Chunk[] {
  assertChunkSettings(size, overlap);
  return strategy === "fixed" ? fixedWindows(text, size, overlap) : boundaryChunks(text, size, overlap);
}

/** Fixed-size character windows; each starts `size - overlap` after the previous one. */
function fixedWindows(text: string, size: number, overlap: number): Chunk[] {
  const chunks: Chunk[] = [];
  for (let start = 0; start < text.length; start += size - overlap) {
    const end = Math.min(start + size, text.length);
    chunks.push({ index: chunks.length, start, end, text: text.slice(start, end) });
    // A window that reaches the end already holds the tail; another would only repeat it.
    if (end === text.length) break;
  }
  return chunks;
}

/** Whitespace as `\s` has it, without a regular expression per character. */
function isSpace(c: string | undefined): boolean {
  if (c === undefined) return false;
  const code = c.charCodeAt(0);
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}
const SENTENCE_END = /[.!?…。！？]["'”’»)\]]*$/;

// Boundary ranks, best first.
const PARAGRAPH = 0;
const SENTENCE = 1;
const LINE = 2;
const WORD = 3;

/**
 * The rank of a cut after `text[e - 1]` (a word's last character, followed by whitespace): a
 * blank line or a Markdown heading after it is a paragraph, a sentence mark before it a sentence,
 * a line break a line, anything else a word (as is the end of a heading line).
 */
function rankAt(text: string, e: number): number {
  let i = e;
  let newlines = 0;
  while (i < text.length && isSpace(text[i])) if (text[i++] === "\n") newlines++;
  // A heading belongs with the text under it: ending a chunk right after one is a last resort.
  // (Scanned only at line ends, so each line is read once per window.)
  if (newlines > 0 && text[text.lastIndexOf("\n", e - 1) + 1] === "#") return WORD;
  if (newlines >= 2 || (newlines === 1 && text[i] === "#")) return PARAGRAPH;
  if (SENTENCE_END.test(text.slice(Math.max(0, e - 4), e))) return SENTENCE;
  return newlines === 1 ? LINE : WORD;
}

/**
 * Where a chunk starting at `from` should end, at most at `limit` and after `after`: the last cut
 * of the best rank in the second half of the window (so chunks stay full), else the last cut of
 * the best rank anywhere after `after`; -1 when no word ends in that range. With `keepRows`, never
 * inside a table's row or header; the end of a header is a last resort, like a heading.
 */
function bestCut(text: string, from: number, limit: number, after: number, tables: TableLayout | null, keepRows: boolean): number {
  const half = from + Math.floor((limit - from) / 2);
  const bestFull = [-1, -1, -1, -1];
  const bestAny = [-1, -1, -1, -1];
  for (let e = limit; e > after; e--) {
    // A word ends at e: a character before it, whitespace (or the end of the text) at it.
    if (isSpace(text[e - 1]) || !(e === text.length || isSpace(text[e]))) continue;
    const cut = tables ? tables.cutAt(e) : "free";
    if (keepRows && cut === "inside") continue;
    const rank = cut === "header" ? WORD : rankAt(text, e);
    if (e >= half && bestFull[rank] < 0) bestFull[rank] = e;
    if (bestAny[rank] < 0) bestAny[rank] = e;
    if (rank === PARAGRAPH && e >= half) break; // nothing later can beat it
  }
  for (const best of [bestFull, bestAny]) {
    for (const rank of [PARAGRAPH, SENTENCE, LINE, WORD]) if (best[rank] >= 0) return best[rank];
  }
  return -1;
}

/** The first character at or after `i` that is not whitespace (text.length if none). */
function nextWord(text: string, i: number): number {
  while (i < text.length && isSpace(text[i])) i++;
  return i;
}

/**
 * Boundary-aware chunks: each starts at a word and ends at the best cut that fits (see
 * bestCut); the next starts at the first word within the last `overlap` characters, or after
 * the cut when none is. A word longer than `size` is cut inside, as nothing else fits.
 * Whitespace between two chunks belongs to neither. In a table (lib/core/tables.ts) chunks end
 * at a row's end and start at a row's start, unless one row alone is longer than `size`; a
 * chunk holding rows without their header gets the header as its context.
 */
function boundaryChunks(text: string, size: number, overlap: number): Chunk[] {
  const chunks: Chunk[] = [];
  const tables = TableLayout.of(text);
  let last = text.length;
  while (last > 0 && isSpace(text[last - 1])) last--;
  let start = nextWord(text, 0);
  let prevEnd = start;
  while (start < last) {
    let end: number;
    if (last - start <= size) {
      end = last;
    } else {
      end = bestCut(text, start, start + size, prevEnd, tables, true);
      if (end < 0 && start < prevEnd) {
        // The overlap leaves no room for the next word or row: start after the previous chunk instead.
        start = nextWord(text, prevEnd);
        continue;
      }
      if (end < 0 && tables) end = bestCut(text, start, start + size, prevEnd, tables, false); // a row longer than size
      if (end < 0) end = start + size; // a single word longer than size
    }
    const context = tables?.contextOf(start, end);
    chunks.push({ index: chunks.length, start, end, text: text.slice(start, end), ...(context ? { context } : {}) });
    if (end >= last) break;
    prevEnd = end;
    start = nextStart(text, start, end, overlap, tables);
  }
  return chunks;
}

/**
 * The first word start in [end - overlap, end) after `start` (in a table, a row's start); inside
 * a long word, end - overlap; else the word after `end`.
 */
function nextStart(text: string, start: number, end: number, overlap: number, tables: TableLayout | null): number {
  const from = Math.max(start + 1, end - overlap);
  if (overlap > 0 && !isSpace(text[end]) && !isSpace(text[end - 1])) return from; // cut inside a word longer than size
  for (let i = from; i < end; i++) {
    if (!isSpace(text[i]) && isSpace(text[i - 1]) && (!tables || tables.canStartAt(i))) return i;
  }
  return nextWord(text, end);
}
