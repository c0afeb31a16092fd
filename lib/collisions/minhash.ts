import { jaccard } from "./tokens";

/**
 * Candidate pairs of near-identical chunks without comparing every chunk with every other:
 * MinHash signatures cut into bands (locality-sensitive hashing), chunks that agree on a whole
 * band become candidates, and each candidate's exact Jaccard similarity decides. With BANDS bands
 * of ROWS rows a pair at Jaccard 0.5 becomes a candidate with probability 1 - (1 - 0.5^3)^32 =
 * 0.986, one at 0.2 with 0.23, one at 0.1 with 0.03. The seeds are fixed: the same chunks give
 * the same pairs on every run.
 */

export const BANDS = 32;
export const ROWS = 3;
const HASHES = BANDS * ROWS;

// mulberry32 with a fixed seed: the permutations every signature uses.
function permutations(): { a: Uint32Array; b: Uint32Array } {
  let seed = 0x5eed1e55;
  const next = () => {
    seed = (seed + 0x6d2b79f5) >>> 0;
    let t = Math.imul(seed ^ (seed >>> 15), seed | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
  const a = new Uint32Array(HASHES);
  const b = new Uint32Array(HASHES);
  for (let i = 0; i < HASHES; i++) {
    a[i] = next() | 1; // odd: multiplication is a permutation of the 32-bit values
    b[i] = next();
  }
  return { a, b };
}
const PERM = permutations();

/** The MinHash signature of a set of shingle hashes, written into `out` at `offset`. */
export function signInto(set: Uint32Array, out: Uint32Array, offset: number): void {
  const { a, b } = PERM;
  for (let i = 0; i < HASHES; i++) out[offset + i] = 0xffffffff;
  for (let s = 0; s < set.length; s++) {
    const x = set[s];
    for (let i = 0; i < HASHES; i++) {
      const v = (Math.imul(a[i], x) + b[i]) >>> 0;
      if (v < out[offset + i]) out[offset + i] = v;
    }
  }
}

export const signatureLength = HASHES;

/** What the search compares: per chunk its document (as a small number), shingles and signature. */
export interface ChunkSet {
  doc: Int32Array;
  shingles: Uint32Array[];
  signatures: Uint32Array;
  count: number;
}

/** A verified pair of chunks (by their place in the ChunkSet, i < j) of two different documents. */
export interface ChunkMatch {
  i: number;
  j: number;
  similarity: number;
}

const PLACE_BITS = 2 ** 21; // chunk places fit in 21 bits beside a 32-bit band key (53 bits in all)

/**
 * Chunk pairs of different documents whose Jaccard similarity is at least `min`. A band bucket
 * holding more than `maxBucketDocs` documents is text many documents share (a footer, a
 * disclaimer), not a copy: it is left out and counted.
 */
export async function matchChunks(
  set: ChunkSet,
  min: number,
  maxBucketDocs: number,
  pause: () => Promise<void>,
): Promise<{ matches: ChunkMatch[]; boilerplate: number }> {
  if (set.count >= PLACE_BITS) throw new Error(`The collision search takes at most ${PLACE_BITS - 1} chunks.`);
  const seen = new Set<number>();
  const matches: ChunkMatch[] = [];
  let boilerplate = 0;
  const keys = new Float64Array(set.count);
  for (let band = 0; band < BANDS; band++) {
    for (let c = 0; c < set.count; c++) {
      const o = c * HASHES + band * ROWS;
      let h = band;
      for (let r = 0; r < ROWS; r++) h = Math.imul(h ^ set.signatures[o + r], 0x01000193) + r;
      keys[c] = (h >>> 0) * PLACE_BITS + c;
    }
    keys.sort();
    for (let start = 0; start < set.count;) {
      const key = Math.floor(keys[start] / PLACE_BITS);
      let end = start + 1;
      while (end < set.count && Math.floor(keys[end] / PLACE_BITS) === key) end++;
      if (end - start > 1) {
        const places = Array.from(keys.subarray(start, end), (k) => k % PLACE_BITS);
        if (new Set(places.map((p) => set.doc[p])).size > maxBucketDocs) boilerplate++;
        else
          for (let x = 0; x < places.length; x++)
            for (let y = x + 1; y < places.length; y++) {
              const [i, j] = [places[x], places[y]];
              if (set.doc[i] === set.doc[j]) continue;
              const pair = i * PLACE_BITS + j;
              if (seen.has(pair)) continue;
              seen.add(pair);
              const similarity = jaccard(set.shingles[i], set.shingles[j]);
              if (similarity >= min) matches.push({ i, j, similarity });
            }
      }
      start = end;
    }
    await pause();
  }
  matches.sort((m, n) => m.i - n.i || m.j - n.j);
  return { matches, boilerplate };
}
