import "server-only";
import { servedDocuments } from "../db/collision-reads";
import { oneAtATime } from "../core/one-at-a-time";
import { competing, type SharedQuestion } from "./competing";
import { differences, type Difference } from "./differences";
import { nearDuplicates, type ChunkPair, type ScanCounts } from "./near-duplicates";
import type { CollisionKind } from "./schema";

/**
 * Pairs of an agent's served documents that collide, the strongest first:
 *   duplicate    near-identical text (near-duplicates.ts), its matched chunk pairs as evidence;
 *   conflicting  near-identical text that differs in numbers, dates, prices or setting names
 *                (differences.ts), the differing sentences side by side as evidence;
 *   competing    different texts retrieved together for the same logged questions with neither
 *                clearly first (competing.ts), those questions as evidence.
 * A pair is one kind: a near-duplicate pair is never also reported as competing. The same data
 * gives the same answer: every step runs in a fixed order with fixed seeds.
 */

export interface CollisionSide {
  document_id: number;
  filename: string;
  chunk_count: number;
}

/** Shown per pair: the first matched chunk pairs in the first document's order. */
const MAX_CHUNK_PAIRS_SHOWN = 50;

export type Collision = {
  kind: CollisionKind;
  /** Duplicates and conflicts: their similarity; competing: the share of close shared questions, discounted below five questions. */
  strength: number;
  a: CollisionSide;
  b: CollisionSide;
} & (
  | { kind: "duplicate"; evidence: { similarity: number; matched_chunk_pairs: number; chunk_pairs: ChunkPair[] } }
  | {
      kind: "conflicting";
      evidence: { similarity: number; matched_chunk_pairs: number; chunk_pairs: ChunkPair[]; differences: Difference[] };
    }
  | { kind: "competing"; evidence: { shared_questions: number; close_questions: number; questions: SharedQuestion[] } }
);

export interface CollisionList {
  collisions: Collision[];
  /** Collisions of the asked kind before `limit`. */
  total: number;
  scanned: ScanCounts & { questions: number };
}

/** Gives the event loop a turn between slices of the search, so other requests are served meanwhile. */
const pause = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function findCollisions(agentId: number, opts: { kind?: CollisionKind; limit: number }): Promise<CollisionList> {
  const docs = servedDocuments(agentId);
  const side = new Map(docs.map((d) => [d.id, { document_id: d.id, filename: d.filename, chunk_count: d.chunk_count }]));
  const found: Collision[] = [];
  const near = new Set<string>();
  // The near-duplicates are read whatever the kind asked: a near-duplicate pair is never competing.
  const { pairs, counts } = await nearDuplicates(agentId, docs, pause);
  for (const p of pairs) {
    near.add(`${p.a}:${p.b}`);
    if (opts.kind !== "competing") {
      const diffs = differences(agentId, p.chunk_pairs);
      const sides = { a: side.get(p.a)!, b: side.get(p.b)! };
      const shown = p.chunk_pairs.slice(0, MAX_CHUNK_PAIRS_SHOWN);
      const evidence = { similarity: p.similarity, matched_chunk_pairs: p.chunk_pairs.length, chunk_pairs: shown };
      if (diffs.length)
        found.push({ kind: "conflicting", strength: p.similarity, ...sides, evidence: { ...evidence, differences: diffs } });
      else found.push({ kind: "duplicate", strength: p.similarity, ...sides, evidence });
    }
  }
  const competition = competing(agentId, new Set(side.keys()));
  if (opts.kind === undefined || opts.kind === "competing") {
    for (const c of competition.pairs) {
      // Near-duplicates compete by nature; they are reported as what they are.
      if (near.has(`${c.a}:${c.b}`)) continue;
      found.push({
        kind: "competing",
        strength: c.strength,
        a: side.get(c.a)!,
        b: side.get(c.b)!,
        evidence: { shared_questions: c.shared, close_questions: c.close, questions: c.questions },
      });
    }
  }
  const kept = found.filter((c) => opts.kind === undefined || c.kind === opts.kind);
  kept.sort(
    (x, y) =>
      y.strength - x.strength || x.a.document_id - y.a.document_id || x.b.document_id - y.b.document_id || x.kind.localeCompare(y.kind),
  );
  return { collisions: kept.slice(0, opts.limit), total: kept.length, scanned: { ...counts, questions: competition.questions } };
}

/** The search reads every served chunk: one at a time across the app (409 meanwhile). */
export const oneCollisionSearch = <T>(agentId: number, work: () => Promise<T>) =>
  oneAtATime("collisions", `A collision search of agent ${agentId}`, "One runs at a time; try again when it finishes.", work);
