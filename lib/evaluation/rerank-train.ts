import "server-only";
import { getAgent, updateAgent } from "../db/agents";
import { AgentView } from "../db/agent-view";
import { listDocuments } from "../db/documents";
import { pairsToRun, type Pair } from "../db/pairs";
import { labelsStamp, findModel, saveModel, type CrossValidation, type RerankerModel, type Scores } from "../db/rerankers";
import { AppError } from "../core/errors";
import { questionKey } from "../core/normalize";
import { CURVE_KS } from "../core/metrics";
import { NO_DOCUMENT } from "../validations/pair";
import { FEATURES, poolFeatures, type FeatureCandidate, type LabelIndex } from "../rerank/features";
import { scoreLinear, trainLinear, type TrainingQuery } from "../rerank/linear";
import { poolCandidates } from "../retrieval/rerank";
import { learnedVersion } from "../rerank/learned";
import { wordsOf } from "../rerank/words";
import { claimAgent, rankPairs } from "./run";

/**
 * Training the learned reranker from the agent's own labels: every accepted pair with an
 * expected document (typed in, imported, labeled from its questions, generated and accepted) is
 * ranked as a run ranks it, its pool (the mode's first `rerank_candidates`) kept with each
 * candidate's features. k-fold cross-validation then ranks every question once with a model
 * trained on the other folds only (its labels, its label features and its weights), against the
 * mode's own order: the gain a team sees is on questions the model never saw. The model that
 * serves is trained on all of them, and is switched on only when the cross-validation says it wins.
 */

/** Folds of the cross-validation. */
export const DEFAULT_FOLDS = 5;
/** Fewer labeled questions than this teach a model nothing a person could trust. */
export const MIN_QUESTIONS = 10;

/** One labeled question as training reads it. */
export interface Example {
  pair: Pair;
  group: number;
  fold: number;
  vector: Float32Array;
  pool: FeatureCandidate[];
  /** The expected document's rank in the mode's order (null: not ranked). */
  base: number | null;
}

export interface TrainingReport {
  model: { version: number; name: string; labels: number; questions: number; trained_at: string };
  cross_validation: CrossValidation;
  /** Whether the agent now ranks with this model. */
  switched_on: boolean;
  /** Why it is or is not switched on, in words. */
  reason: string;
  /** Each labeled question's rank in its held-out fold, without and with the model that did not see it. */
  held_out: HeldOut[];
}

/** A stable hash of a question's key: which fold it lands in depends on its wording alone. */
function fnv(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * The fold of each question group: groups in order of their hash, dealt round robin, so a
 * wording and every pair sharing it are in one fold, and the folds are as even as they can be.
 */
export function foldsOf(keys: string[], folds: number): Map<string, number> {
  const distinct = [...new Set(keys)].sort((a, b) => fnv(a) - fnv(b) || (a < b ? -1 : a > b ? 1 : 0));
  return new Map(distinct.map((k, i) => [k, i % folds]));
}

/** The label index of some examples: their questions by expected document. */
export function labelIndexOf(examples: Pick<Example, "pair" | "group" | "vector">[]): LabelIndex {
  const index: LabelIndex = new Map();
  for (const e of examples) {
    const list = index.get(e.pair.expected_filename) ?? [];
    list.push({ group: e.group, stems: [...new Set(wordsOf(e.pair.query).stems)], vector: e.vector });
    index.set(e.pair.expected_filename, list);
  }
  return index;
}

export const featuresOf = (e: Example, labels: LabelIndex, exclude?: number) =>
  poolFeatures({ text: e.pair.query, vector: Array.from(e.vector) }, e.pool, labels, exclude);

/** A training question: its pool's features, its own wording left out of the label features. */
export const trainingQuery = (e: Example, labels: LabelIndex): TrainingQuery => ({
  features: featuresOf(e, labels, e.group),
  positive: e.pool.map((c) => c.filename === e.pair.expected_filename),
});

/** The rank a reranker with `scores` gives the example's document: its place in the reordered pool, or its rank past the pool. */
export function rankAfter(e: Pick<Example, "pool" | "base" | "pair">, scores: number[]): number | null {
  const order = e.pool.map((c, i) => ({ c, i, s: scores[i] })).sort((a, b) => b.s - a.s || a.i - b.i);
  const at = order.findIndex((o) => o.c.filename === e.pair.expected_filename);
  if (at >= 0) return at + 1;
  return e.base === null ? null : Math.max(e.base, e.pool.length + 1);
}

export function scoresOf(ranks: (number | null)[]): Scores {
  const n = ranks.length || 1;
  const recall_at_k: Record<string, number> = {};
  for (const k of CURVE_KS) recall_at_k[String(k)] = ranks.filter((r) => r !== null && r <= k).length / n;
  return { recall_at_k, mrr: ranks.reduce<number>((s, r) => s + (r === null ? 0 : 1 / r), 0) / n };
}

/**
 * Every labeled question of the agent (or the given pairs) with its pool and its rank in the
 * mode's order, ranked as a run ranks them.
 */
export async function examplesOf(agentId: number, candidates: number, folds: number, given?: Pair[]): Promise<Example[]> {
  const agent = getAgent(agentId);
  const docs = listDocuments(agentId).filter((d) => d.status === "ready");
  const ready = new Set(docs.map((d) => d.filename));
  const pairs = (given ?? pairsToRun(agentId)).filter((p) => p.expected_filename !== NO_DOCUMENT && ready.has(p.expected_filename));
  const keys = pairs.map((p) => questionKey(p.query));
  const groupOf = new Map([...new Set(keys)].map((k, i) => [k, i]));
  const foldOf = foldsOf(keys, folds);
  const gathered = new Map<number, { vector: Float32Array; pool: FeatureCandidate[] }>();
  const base = new Map<number, number | null>();
  await rankPairs(
    AgentView.of(agentId),
    pairs,
    {
      docs,
      cut: null,
      mode: agent.retrieval_mode,
      collect: {
        candidates,
        take: (batch, read, pools) => {
          const candidatesOf = poolCandidates(read, pools);
          batch.forEach((p, j) =>
            gathered.set(p.id, { vector: Float32Array.from(read.vectors[j]), pool: candidatesOf[j].map((c) => c.candidate) }),
          );
        },
      },
    },
    (results) => results.forEach((r) => r.pair_id !== null && base.set(r.pair_id, r.rank)),
  );
  return pairs.flatMap((p, i): Example[] => {
    const g = gathered.get(p.id);
    if (!g) return []; // the agent had no chunks for its filter
    return [
      { pair: p, group: groupOf.get(keys[i])!, fold: foldOf.get(keys[i])!, vector: g.vector, pool: g.pool, base: base.get(p.id) ?? null },
    ];
  });
}

/** Each held-out question's rank without and with the model of its fold. */
export interface HeldOut {
  pair_id: number;
  query: string;
  expected: string;
  fold: number;
  without: number | null;
  with: number | null;
}

/** Which questions each fold trains on and which it ranks: every group in exactly one test fold, never in its own training. */
export function foldPlan<E extends Pick<Example, "fold">>(examples: E[], folds: number): { train: E[]; test: E[] }[] {
  return Array.from({ length: folds }, (_, f) => ({
    train: examples.filter((e) => e.fold !== f),
    test: examples.filter((e) => e.fold === f),
  }));
}

/** Cross-validation over examples: each fold's questions ranked by a model trained on the others. */
export function crossValidate(examples: Example[], folds: number, k: number): { summary: CrossValidation; held_out: HeldOut[] } {
  const without: (number | null)[] = [];
  const withModel: (number | null)[] = [];
  const held_out: HeldOut[] = [];
  for (const [f, { train, test }] of foldPlan(examples, folds).entries()) {
    if (test.length === 0) continue;
    const labels = labelIndexOf(train);
    const model = trainLinear(
      FEATURES,
      train.map((e) => trainingQuery(e, labels)),
    );
    for (const e of test) {
      const after = rankAfter(
        e,
        featuresOf(e, labels).map((x) => scoreLinear(model, x)),
      );
      without.push(e.base);
      withModel.push(after);
      held_out.push({ pair_id: e.pair.id, query: e.pair.query, expected: e.pair.expected_filename, fold: f, without: e.base, with: after });
    }
  }
  const before = scoresOf(without);
  const after = scoresOf(withModel);
  const key = String(k);
  const wins = after.mrr > before.mrr && after.recall_at_k[key] >= before.recall_at_k[key];
  return { summary: { folds, questions: without.length, k, without: before, with: after, wins }, held_out };
}

/**
 * Trains the agent's learned reranker and cross-validates it (one evaluation of the agent at a
 * time: training ranks every labeled question). The model is kept whatever the outcome; the agent
 * is switched to it only when it wins and `switchOn` (the default) asks for it. A model that
 * loses leaves the agent as it was, an earlier winning model included.
 */
export async function trainReranker(
  agentId: number,
  opts: { k?: number; folds?: number; switchOn?: boolean } = {},
): Promise<TrainingReport> {
  const k = opts.k ?? 3;
  const folds = opts.folds ?? DEFAULT_FOLDS;
  const slot = claimAgent(agentId, "Training the learned reranker of this agent");
  try {
    const agent = getAgent(agentId);
    const stamp = labelsStamp(agentId);
    const examples = await examplesOf(agentId, agent.rerank_candidates, folds);
    const questions = new Set(examples.map((e) => e.group)).size;
    if (questions < Math.max(MIN_QUESTIONS, folds)) {
      throw new AppError(
        "no_pairs",
        `The learned reranker needs at least ${Math.max(MIN_QUESTIONS, folds)} labeled questions whose document is ready; this agent has ${questions}. ` +
          "Label questions, accept generated ones or add pairs first.",
      );
    }
    const { summary: cross_validation, held_out } = crossValidate(examples, folds, k);
    const labels = labelIndexOf(examples);
    const model = trainLinear(
      FEATURES,
      examples.map((e) => trainingQuery(e, labels)),
    );
    const id = saveModel({
      agent_id: agentId,
      mode: agent.retrieval_mode,
      labels: examples.length,
      labels_stamp: stamp,
      model,
      label_index: labels,
      cross_validation,
      wins: cross_validation.wins,
    });
    const saved = findModel(agentId, id)!;
    const switched = cross_validation.wins && opts.switchOn !== false;
    if (switched) updateAgent(agentId, { reranker: "learned", reranker_model_id: id });
    return {
      model: { version: id, name: learnedVersion(saved), labels: examples.length, questions, trained_at: saved.created_at },
      cross_validation,
      switched_on: switched,
      reason: reasonFor(cross_validation, switched, opts.switchOn !== false, agent),
      held_out,
    };
  } finally {
    slot.release();
  }
}

function reasonFor(
  cv: CrossValidation,
  switched: boolean,
  asked: boolean,
  before: { reranker: string; reranker_model_id: number | null },
): string {
  const f = (x: number) => x.toFixed(3);
  const key = String(cv.k);
  const figures = `on ${cv.questions} held-out questions, recall@${cv.k} ${f(cv.without.recall_at_k[key])} → ${f(cv.with.recall_at_k[key])}, MRR ${f(cv.without.mrr)} → ${f(cv.with.mrr)}`;
  if (switched) return `Switched on: it wins ${figures}.`;
  if (cv.wins && !asked) return `It wins ${figures}; not switched on, as asked.`;
  const kept =
    before.reranker === "learned" && before.reranker_model_id !== null
      ? ` The agent keeps ranking with learned v${before.reranker_model_id}.`
      : " The agent keeps ranking without it.";
  return `Not switched on: it does not beat the ${"mode's own order"} ${figures}.${kept}`;
}

export type { RerankerModel };
