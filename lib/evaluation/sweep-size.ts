import "server-only";
import { readyTextLengths, type DocumentRow } from "../db/documents";
import { invalid } from "../core/errors";
import { settingLabel, type SweepSetting } from "../core/sweep-types";

/** Fixed windows of `size` that start `size - overlap` apart over `length` characters: what the fixed chunker makes. */
function windowCount(length: number, size: number, overlap: number): number {
  return length === 0 ? 0 : length <= size ? 1 : Math.ceil((length - size) / (size - overlap)) + 1;
}

const count = (n: number) => n.toLocaleString("en-US");

/** 422 naming the setting, the chunks its row would make and the limit (MAX_SWEEP_ROW_CHUNKS). */
export const tooManyChunks = (s: SweepSetting, chunks: number, limit: number, how: "about" | "at least" | "" = "") =>
  invalid(
    `The setting ${settingLabel(s)} would cut this agent's documents into ${how ? `${how} ` : ""}${count(chunks)} chunks; ` +
      `a sweep row makes at most ${count(limit)}. Pick a larger chunk size or a smaller overlap.`,
  );

/**
 * Refuses, before anything starts, a setting whose row would make more than `limit` chunks. The
 * count is the fixed windows over each document's length, read from SQLite: exact for `fixed`;
 * the `boundary` chunker makes about as many (10-30% more on prose, fewer on tiny sizes), and
 * the row itself stops at the limit when the chunker's own count passes it.
 */
export function assertRowSizes(agentId: number, settings: SweepSetting[], docs: DocumentRow[], limit: number): void {
  const lengths = readyTextLengths(agentId);
  for (const s of settings) {
    const chunks = docs.reduce((n, d) => n + windowCount(lengths.get(d.id) ?? 0, s.chunk_size, s.chunk_overlap), 0);
    if (chunks > limit) throw tooManyChunks(s, chunks, limit, s.chunk_strategy === "fixed" ? "" : "about");
  }
}
