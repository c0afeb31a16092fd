import type { EvalRun, PairResult } from "../db/eval-runs";
import { RETRIEVAL_MODES, type RetrievalMode } from "../validations/agent";
import { isHit, summarize } from "../core/metrics";

/** The ks every mode is compared at; the dashboard's k is added when it is not one of them. */
export const MODE_KS = [1, 3, 5, 10];

type RunLike = Pick<EvalRun, "id" | "status" | "retrieval_mode" | "n_pairs">;

export interface ModeRun<R extends RunLike = RunLike> {
  mode: RetrievalMode;
  run: R;
  results: PairResult[];
}

/** A pair as a run saw it: an edited query or document makes it another pair. */
export const pairKey = (p: { pair_id: number | null; query: string; expected: string }) =>
  `${p.pair_id}\u0000${p.query}\u0000${p.expected}`;

const pairSet = (keys: string[]) => [...keys].sort().join("\u0001");

/**
 * The latest finished run of each mode over exactly the given pairs, in RETRIEVAL_MODES order.
 * Results are read only for runs whose pair count already matches.
 */
export function latestRunPerMode<R extends RunLike>(
  runs: R[],
  pairKeys: string[],
  resultsOf: (runId: number) => PairResult[],
): ModeRun<R>[] {
  const wanted = pairSet(pairKeys);
  const picked = new Map<RetrievalMode, ModeRun<R>>();
  for (const run of [...runs].sort((a, b) => b.id - a.id)) {
    if (run.status !== "done" || run.n_pairs !== pairKeys.length || picked.has(run.retrieval_mode)) continue;
    const results = resultsOf(run.id);
    if (pairSet(results.map(pairKey)) === wanted) picked.set(run.retrieval_mode, { mode: run.retrieval_mode, run, results });
  }
  return RETRIEVAL_MODES.flatMap((m) => picked.get(m) ?? []);
}

export interface ModeRow {
  mode: RetrievalMode;
  runId: number;
  /** The mode the agent's search uses now. */
  current: boolean;
  /** Recall at each compared k, by k. */
  recall: Record<string, number | null>;
  mrr: number | null;
  /** Recall@1..20, for the curve. */
  curve: (number | null)[];
}

export interface ModeOutcome {
  rank: number | null;
  beyondCut: boolean;
  hit: boolean;
}

export interface Disagreement {
  pairId: number | null;
  query: string;
  expected: string;
  outcomes: Partial<Record<RetrievalMode, ModeOutcome>>;
  /** Where to look first: the agent's mode when it misses, else the first mode that misses. */
  inspectMode: RetrievalMode;
}

export interface ModeComparison {
  k: number;
  /** The recall columns: MODE_KS and k, ascending. */
  ks: number[];
  rows: ModeRow[];
  /** The modes with the highest figure of each column ("1", "3", … and "mrr"); ties are all best. */
  best: Record<string, RetrievalMode[]>;
  /** Pairs that are a hit in one mode and a miss in another at k, the agent's mode's misses first. */
  disagreements: Disagreement[];
}

function bestOf(rows: ModeRow[], value: (r: ModeRow) => number | null): RetrievalMode[] {
  const known = rows.filter((r) => value(r) !== null);
  if (known.length === 0) return [];
  const top = Math.max(...known.map((r) => value(r)!));
  return known.filter((r) => value(r) === top).map((r) => r.mode);
}

function disagreements(modeRuns: ModeRun[], k: number, agentMode: RetrievalMode): Disagreement[] {
  const byMode = modeRuns.map((m) => ({ mode: m.mode, byKey: new Map(m.results.map((r) => [pairKey(r), r])) }));
  const found: (Disagreement & { agentMisses: boolean; hits: number })[] = [];
  for (const pair of modeRuns[0]?.results ?? []) {
    const outcomes: Partial<Record<RetrievalMode, ModeOutcome>> = {};
    // A pair with no document to find, or whose document is gone, is neither hit nor miss.
    let scored = true;
    for (const { mode, byKey } of byMode) {
      const r = byKey.get(pairKey(pair));
      const hit = r ? isHit(r, k) : null;
      if (!r || hit === null) scored = false;
      else outcomes[mode] = { rank: r.rank, beyondCut: r.beyond_cut, hit };
    }
    const modes = Object.keys(outcomes) as RetrievalMode[];
    const missed = modes.filter((m) => !outcomes[m]!.hit);
    if (!scored || missed.length === 0 || missed.length === modes.length) continue;
    const agentMisses = missed.includes(agentMode);
    found.push({
      pairId: pair.pair_id,
      query: pair.query,
      expected: pair.expected,
      outcomes,
      inspectMode: agentMisses ? agentMode : missed[0],
      agentMisses,
      hits: modes.length - missed.length,
    });
  }
  found.sort((a, b) => Number(b.agentMisses) - Number(a.agentMisses) || b.hits - a.hits || a.query.localeCompare(b.query));
  return found.map(({ agentMisses: _a, hits: _h, ...d }) => d);
}

/** Recall and MRR of each mode's run side by side, the best of each column, and the pairs the modes disagree on at k. */
export function compareModes(modeRuns: ModeRun[], k: number, agentMode: RetrievalMode): ModeComparison {
  const ks = [...new Set([...MODE_KS, k])].sort((a, b) => a - b);
  const rows: ModeRow[] = modeRuns.map(({ mode, run, results }) => {
    const summary = summarize(results);
    return {
      mode,
      runId: run.id,
      current: mode === agentMode,
      recall: Object.fromEntries(ks.map((i) => [String(i), summary.recall_at_k[String(i)] ?? null])),
      mrr: summary.mrr,
      curve: Object.values(summary.recall_at_k),
    };
  });
  const best: Record<string, RetrievalMode[]> = Object.fromEntries(ks.map((i) => [String(i), bestOf(rows, (r) => r.recall[String(i)])]));
  best.mrr = bestOf(rows, (r) => r.mrr);
  return { k, ks, rows, best, disagreements: disagreements(modeRuns, k, agentMode) };
}
