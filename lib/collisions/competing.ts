import "server-only";
import type { RetrievalTrace } from "../core/trace";
import { loggedRetrievals } from "../db/collision-reads";

/**
 * Documents that compete for the same questions: two served documents both retrieved for the
 * agent's own logged questions (the API's searches and asks, each distinct question once, its
 * latest call), together in a good share of the questions either is retrieved for, with their
 * best ranks within one of each other in most of them, so neither is clearly the answer. Labeled pairs do not count: an evaluation run keeps the expected document's
 * rank, not what else was retrieved.
 */

/** The latest logged calls read. */
export const MAX_LOGGED_CALLS = 10_000;
/** Ranks past this are not read (a call with a large top_k). */
const MAX_RANK = 20;
/** Fewer shared questions than this is chance, not competition. */
export const MIN_SHARED_QUESTIONS = 2;
/** Share of the questions of the less retrieved of the two that retrieve both: two questions of fifty is chance. */
export const MIN_SHARED_SHARE = 0.3;
/** Share of the shared questions where the two rank within one of each other. */
export const MIN_CLOSE_SHARE = 0.5;
/** Shared questions shown per pair. */
const MAX_QUESTIONS_SHOWN = 10;
/** Below this many shared questions the strength is discounted: two questions are weaker evidence than ten. */
const FULL_EVIDENCE = 5;

export interface SharedQuestion {
  /** As the agent was asked it; null when the agent does not keep its questions' text. */
  question: string | null;
  rank_a: number;
  rank_b: number;
}

export interface Competition {
  a: number;
  b: number;
  shared: number;
  /** Shared questions where their best ranks are within one of each other. */
  close: number;
  strength: number;
  questions: SharedQuestion[];
}

export function competing(agentId: number, served: Set<number>): { pairs: Competition[]; questions: number } {
  const seen = new Set<string>();
  const retrieved = new Map<number, number>();
  const byPair = new Map<string, { a: number; b: number; shared: number; close: number; questions: SharedQuestion[] }>();
  for (const call of loggedRetrievals(agentId, MAX_LOGGED_CALLS)) {
    const key = call.question_key ?? `call ${call.id}`;
    if (seen.has(key)) continue; // newest first: the latest call of each question
    seen.add(key);
    let trace: RetrievalTrace;
    try {
      trace = JSON.parse(call.retrieval) as RetrievalTrace;
    } catch {
      continue;
    }
    const best = new Map<number, number>();
    (trace.results ?? []).slice(0, MAX_RANK).forEach((r, k) => {
      if (served.has(r.document_id) && !best.has(r.document_id)) best.set(r.document_id, k + 1);
    });
    const ids = [...best.keys()].sort((x, y) => x - y);
    for (const id of ids) retrieved.set(id, (retrieved.get(id) ?? 0) + 1);
    for (let x = 0; x < ids.length; x++)
      for (let y = x + 1; y < ids.length; y++) {
        const [a, b] = [ids[x], ids[y]];
        const pairKey = `${a}:${b}`;
        let entry = byPair.get(pairKey);
        if (!entry) byPair.set(pairKey, (entry = { a, b, shared: 0, close: 0, questions: [] }));
        const [rankA, rankB] = [best.get(a)!, best.get(b)!];
        entry.shared++;
        if (Math.abs(rankA - rankB) <= 1) entry.close++;
        if (entry.questions.length < MAX_QUESTIONS_SHOWN) entry.questions.push({ question: call.question, rank_a: rankA, rank_b: rankB });
      }
  }
  const pairs: Competition[] = [];
  for (const e of byPair.values()) {
    if (e.shared < MIN_SHARED_QUESTIONS || e.close / e.shared <= MIN_CLOSE_SHARE) continue;
    if (e.shared < MIN_SHARED_SHARE * Math.min(retrieved.get(e.a)!, retrieved.get(e.b)!)) continue;
    const strength = Math.round((e.close / e.shared) * Math.min(1, e.shared / FULL_EVIDENCE) * 1000) / 1000;
    pairs.push({ ...e, strength });
  }
  return { pairs, questions: seen.size };
}
