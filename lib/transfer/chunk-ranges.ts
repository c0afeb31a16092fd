import { chunkText, type ChunkStrategy } from "../core/chunking";

interface Range {
  start: number;
  end: number;
}

const count = (n: number) => n.toLocaleString("en-US");
const blank = (s: string) => s.trim() === "";

/**
 * Why a document's chunk ranges are not ones the chunker could have made of its text at its
 * settings, or null when they could be. Fixed windows must be exactly the chunker's; boundary
 * chunks (whose cuts may move between releases) must keep the chunker's rules: each at most
 * `size` characters, each starting and ending after the one before and sharing at most `overlap`
 * characters with it, and every character outside them whitespace.
 */
export function chunkRangeProblem(text: string, chunks: Range[], size: number, overlap: number, strategy: ChunkStrategy): string | null {
  if (chunks.length > text.length) {
    return `it lists ${count(chunks.length)} chunks for a text of ${count(text.length)} characters; each chunk ends after the one before, so there can be at most one a character.`;
  }
  const fixed = strategy === "fixed" ? chunkText(text, size, overlap, "fixed") : undefined;
  if (fixed && fixed.length !== chunks.length) {
    return `it lists ${count(chunks.length)} chunks; fixed windows of ${size} characters overlapping by ${overlap} cut its text of ${count(text.length)} characters into ${count(fixed.length)}.`;
  }
  let covered = 0;
  for (const [i, c] of chunks.entries()) {
    const at = `chunk ${i} (characters ${c.start}-${c.end})`;
    if (c.start >= c.end || c.end > text.length) return `${at} is not a range inside its text of ${count(text.length)} characters.`;
    if (c.end - c.start > size) return `${at} is ${count(c.end - c.start)} characters long, over its chunk size of ${size}.`;
    if (fixed && (c.start !== fixed[i].start || c.end !== fixed[i].end)) {
      return `${at} is not the fixed window the chunker makes there (characters ${fixed[i].start}-${fixed[i].end}).`;
    }
    if (i > 0) {
      const prev = chunks[i - 1];
      if (c.start <= prev.start || c.end <= prev.end)
        return `${at} does not start and end after chunk ${i - 1} (characters ${prev.start}-${prev.end}).`;
      if (prev.end - c.start > overlap)
        return `${at} shares ${count(prev.end - c.start)} characters with chunk ${i - 1}, more than its overlap of ${overlap}.`;
    }
    if (c.start > covered && !blank(text.slice(covered, c.start))) return `characters ${covered}-${c.start} of its text are in no chunk.`;
    covered = c.end;
  }
  if (!blank(text.slice(covered))) return `characters ${covered}-${text.length} of its text are in no chunk.`;
  return null;
}
