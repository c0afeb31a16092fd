// A copy of lib/core/chunking.ts's fixed windows as migration 6 first ran them: the live chunker may change.

export interface FrozenChunk {
  index: number;
  /** Character offsets into the document text, end exclusive. */
  start: number;
  end: number;
  text: string;
}

/** Throws unless 0 <= overlap < size: otherwise the window would never advance. */
function assertChunkSettings(size: number, overlap: number): void {
  if (!Number.isInteger(size) || !Number.isInteger(overlap)) {
    throw new RangeError("Chunk size and overlap must be whole numbers.");
  }
  if (overlap < 0 || size <= overlap) {
    throw new RangeError(`Chunk overlap must be at least 0 and smaller than the chunk size (got size ${size}, overlap ${overlap}).`);
  }
}

/** chunkText(text, size, overlap, "fixed"): fixed-size character windows; each starts `size - overlap` after the previous one. */
export function fixedWindows(text: string, size: number, overlap: number): FrozenChunk[] {
  assertChunkSettings(size, overlap);
  const chunks: FrozenChunk[] = [];
  for (let start = 0; start < text.length; start += size - overlap) {
    const end = Math.min(start + size, text.length);
    chunks.push({ index: chunks.length, start, end, text: text.slice(start, end) });
    // A window that reaches the end already holds the tail; another would only repeat it.
    if (end === text.length) break;
  }
  return chunks;
}
