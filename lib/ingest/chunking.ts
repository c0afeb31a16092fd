export interface Chunk {
  index: number;
  /** Character offsets into the document text, end exclusive. */
  start: number;
  end: number;
  text: string;
}

export const DEFAULT_CHUNK_SIZE = 800;
export const DEFAULT_CHUNK_OVERLAP = 100;

/** Throws unless 0 <= overlap < size: otherwise the window would never advance. */
export function assertChunkSettings(size: number, overlap: number): void {
  if (!Number.isInteger(size) || !Number.isInteger(overlap)) {
    throw new RangeError("Chunk size and overlap must be whole numbers.");
  }
  if (overlap < 0 || size <= overlap) {
    throw new RangeError(`Chunk overlap must be at least 0 and smaller than the chunk size (got size ${size}, overlap ${overlap}).`);
  }
}

/** Fixed-size character windows; each starts `size - overlap` after the previous one. */
export function chunkText(text: string, size = DEFAULT_CHUNK_SIZE, overlap = DEFAULT_CHUNK_OVERLAP): Chunk[] {
  assertChunkSettings(size, overlap);
  const chunks: Chunk[] = [];
  for (let start = 0; start < text.length; start += size - overlap) {
    const end = Math.min(start + size, text.length);
    chunks.push({ index: chunks.length, start, end, text: text.slice(start, end) });
    // A window that reaches the end already holds the tail; another would only repeat it.
    if (end === text.length) break;
  }
  return chunks;
}
