import type { IndexMiss } from "@/lib/retrieval/inspect-misses";
import { ordinal } from "../format/ordinal";

type Miss = Pick<IndexMiss, "filename" | "chunk_index" | "distance" | "exact_rank" | "nearer_than" | "nearer_than_distance">;

/** Two distances with as many decimals (4 to 7) as it takes to tell them apart. */
export function twoDistances(a: number, b: number): [string, string] {
  let digits = 4;
  while (digits < 7 && a.toFixed(digits) === b.toFixed(digits)) digits++;
  return [a.toFixed(digits), b.toFixed(digits)];
}

/**
 * One chunk the vector index did not return although it is nearer than a result, in words.
 * `of`: whose result it is nearer than, when the results are not the vector ranking (keyword, hybrid).
 */
export function indexMissSentence(m: Miss, of: "results" | "vector ranking" = "results"): string {
  const chunk = `"${m.filename}" chunk ${m.chunk_index}`;
  const didNot = "but the vector index did not return it: an approximate-search miss.";
  if (m.nearer_than === null || m.nearer_than_distance === null) {
    // The index returned fewer results than asked for, all nearer than this chunk.
    return `${chunk} is the ${m.exact_rank === 1 ? "" : `${ordinal(m.exact_rank)} `}nearest chunk (${m.distance.toFixed(4)}), ${didNot}`;
  }
  const [mine, theirs] = twoDistances(m.distance, m.nearer_than_distance);
  const result = of === "results" ? `result ${m.nearer_than}` : `the vector ranking's result ${m.nearer_than}`;
  return `${chunk} is nearer than ${result} (${mine} against ${theirs}), ${didNot}`;
}

/** The first `cap` of a list, with how many are left unsaid. */
export function capped<T>(items: T[], cap: number): { shown: T[]; more: number } {
  return items.length <= cap ? { shown: items, more: 0 } : { shown: items.slice(0, cap), more: items.length - cap };
}
