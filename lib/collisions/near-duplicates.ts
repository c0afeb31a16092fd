import "server-only";
import { servedChunkTexts, type ServedDocument } from "../db/collision-reads";
import { hash32, shingles, tokenize } from "./tokens";
import { matchChunks, signatureLength, signInto, type ChunkSet } from "./minhash";

/**
 * Near-duplicate documents: pairs of the agent's served documents most of whose chunks have a
 * near-identical chunk in the other (numbers, dates and prices masked), found through MinHash
 * candidates (minhash.ts) and exact Jaccard similarity, never by comparing every chunk pair.
 */

/** Two chunks match at this Jaccard similarity of their masked shingles. */
export const CHUNK_MATCH = 0.5;
/** Two documents are near-duplicates at this similarity (below). */
export const DOCUMENT_MATCH = 0.5;
/** Fewer shingles than this: too short to tell a copy from a common phrase, left out. */
export const MIN_SHINGLES = 8;
/** A band bucket shared by more documents than this is boilerplate (see matchChunks). */
export const MAX_BUCKET_DOCUMENTS = 50;

export interface ChunkRef {
  document_id: number;
  chunk_index: number;
}

export interface ChunkPair {
  a: ChunkRef;
  b: ChunkRef;
  similarity: number;
  /** The two chunks' texts are the same, character for character. */
  identical: boolean;
}

/** Two documents (a: the lower id) and how alike they are. */
export interface NearDuplicate {
  a: number;
  b: number;
  /**
   * Each chunk's best match in the other document (0 without one), averaged over both
   * documents' compared chunks: 1 for a copy, about the share of the text two documents share.
   */
  similarity: number;
  chunk_pairs: ChunkPair[];
}

export interface ScanCounts {
  documents: number;
  chunks: number;
  /** Chunks too short to compare. */
  short_chunks: number;
  /** Band buckets left out as text many documents share. */
  boilerplate_buckets: number;
}

export async function nearDuplicates(
  agentId: number,
  docs: ServedDocument[],
  pause: () => Promise<void>,
): Promise<{ pairs: NearDuplicate[]; counts: ScanCounts }> {
  const docIndex = new Map(docs.map((d, k) => [d.id, k]));
  const refs: ChunkRef[] = [];
  const raw: number[] = [];
  const doc: number[] = [];
  const sets: Uint32Array[] = [];
  const compared = new Int32Array(docs.length);
  const cache = new Map<string, number>();
  let signatures = new Uint32Array(1024 * signatureLength);
  let short = 0;
  let read = 0;
  for (const c of servedChunkTexts(agentId)) {
    if (++read % 2000 === 0) await pause();
    const k = docIndex.get(c.document_id);
    if (k === undefined) continue;
    const set = shingles(tokenize(c.text), cache);
    if (set.length < MIN_SHINGLES) {
      short++;
      continue;
    }
    if ((sets.length + 1) * signatureLength > signatures.length) {
      const grown = new Uint32Array(signatures.length * 2);
      grown.set(signatures);
      signatures = grown;
    }
    signInto(set, signatures, sets.length * signatureLength);
    refs.push({ document_id: c.document_id, chunk_index: c.chunk_index });
    raw.push(hash32(c.text));
    doc.push(k);
    sets.push(set);
    compared[k]++;
  }
  const chunkSet: ChunkSet = { doc: Int32Array.from(doc), shingles: sets, signatures, count: sets.length };
  const { matches, boilerplate } = await matchChunks(chunkSet, CHUNK_MATCH, MAX_BUCKET_DOCUMENTS, pause);

  // Per document pair: each chunk's best match on the other side.
  const byPair = new Map<number, { best: Map<number, number>; pairs: ChunkPair[] }>();
  for (const m of matches) {
    const [da, db] = [doc[m.i], doc[m.j]];
    const key = Math.min(da, db) * docs.length + Math.max(da, db);
    let entry = byPair.get(key);
    if (!entry) byPair.set(key, (entry = { best: new Map(), pairs: [] }));
    for (const place of [m.i, m.j]) entry.best.set(place, Math.max(entry.best.get(place) ?? 0, m.similarity));
    const [first, second] = da < db ? [m.i, m.j] : [m.j, m.i];
    entry.pairs.push({ a: refs[first], b: refs[second], similarity: round(m.similarity), identical: raw[m.i] === raw[m.j] });
  }
  const pairs: NearDuplicate[] = [];
  for (const [key, { best, pairs: chunkPairs }] of byPair) {
    const [ka, kb] = [Math.floor(key / docs.length), key % docs.length];
    let sum = 0;
    for (const v of best.values()) sum += v;
    const similarity = sum / (compared[ka] + compared[kb]);
    if (similarity < DOCUMENT_MATCH) continue;
    chunkPairs.sort((x, y) => x.a.chunk_index - y.a.chunk_index || x.b.chunk_index - y.b.chunk_index);
    pairs.push({ a: docs[ka].id, b: docs[kb].id, similarity: round(similarity), chunk_pairs: chunkPairs });
  }
  pairs.sort((x, y) => y.similarity - x.similarity || x.a - y.a || x.b - y.b);
  return {
    pairs,
    counts: { documents: docs.length, chunks: read, short_chunks: short, boilerplate_buckets: boilerplate },
  };
}

export const round = (x: number) => Math.round(x * 1000) / 1000;
