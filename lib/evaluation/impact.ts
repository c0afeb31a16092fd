import "server-only";
import { AgentView } from "../db/agent-view";
import { listDocuments } from "../db/documents";
import { draftDocuments } from "../db/drafts";
import { pairsToRun, type Pair } from "../db/pairs";
import { loggedQuestionCalls } from "../db/questions";
import type { PairResult } from "../db/eval-runs";
import { embedder } from "../embeddings/configured";
import { searchEnding, type RetrievalTrace, type SearchEnding } from "../core/trace";
import { noMatchCut } from "../retrieval/cut";
import { dropDraftKeywords } from "../retrieval/draft-keywords";
import { asAskedWith, retrieve, type SearchResult } from "../retrieval/retrieve";
import { draftView } from "../ingest/drafts";
import type { RetrievalMode } from "../validations/agent";
import { oneAtATime } from "../core/one-at-a-time";
import { EVAL_BATCH, rankPairs, summarizeResults, type PairRanking } from "./run";

/**
 * A draft's impact: the agent's labeled pairs and its latest logged questions read as the agent
 * serves them and as the draft would leave it (AgentView.asDraft), through the very functions an
 * evaluation run and a search use. Pairs are ranked by rankPairs, so the "after" figures are what
 * an evaluation run measures once the draft is published, to the last bit: the exact ranking's
 * distances do not depend on where a vector is scored, the keyword index and the query-weighting
 * counts are functions of the chunks they hold, and the figures are summed in pair order.
 */

/** Logged questions read by default: the latest this many. */
export const IMPACT_QUESTIONS = 1_000;

export interface PairChange {
  pair_id: number;
  query: string;
  expected: string;
  /** Rank of the expected document (null: not found, or past the cut), served and with the draft. */
  rank: { before: number | null; after: number | null };
  /** Within the first k: rescued (false to true), broken (true to false). */
  hit: { before: boolean; after: boolean };
}

export interface FirstResult {
  ending: SearchEnding;
  filename: string | null;
  chunk_index: number | null;
  chunk_text: string | null;
  score: number | null;
}

export interface QuestionChange {
  call_id: number;
  text: string;
  top_k: number;
  before: FirstResult;
  after: FirstResult;
}

export interface DraftImpact {
  draft_id: number;
  k: number;
  /** A served document the draft builds on changed since: publishing is refused until it is made again. */
  base_changed: boolean;
  settings: { mode: Change<RetrievalMode>; cut: Change<number | null> };
  pairs: {
    count: number;
    recall_at_k: Change<number | null>;
    mrr: Change<number | null>;
    rescued: number;
    broken: number;
    /** Each pair whose rank or hit changes: broken ones first, then rescued, then the rest. */
    changed: PairChange[];
  };
  questions: {
    count: number;
    /** Each logged question whose first result or refusal changes, newest first. */
    changed: QuestionChange[];
  };
}

type Change<T> = { before: T; after: T };

/** What a run scores a pair by: its rank, unless past the cut. */
const effectiveRank = (r: PairResult) => (r.beyond_cut ? null : r.rank);

export interface ImpactOptions {
  k: number;
  /** How many of the latest logged questions to read (0: none). */
  questions?: number;
  /** What the agent serves, read once for several drafts (suggested fixes): impactBaseline. */
  baseline?: ImpactBaseline;
}

/** The agent's pairs and logged questions as it serves them: the "before" of every draft's impact. */
export interface ImpactBaseline {
  pairs: Pair[];
  results: Map<number, PairResult>;
  questions: LoggedQuestion[];
  firsts: Map<string, FirstResult>;
}

interface LoggedQuestion {
  id: number;
  text: string;
  top_k: number;
  /** The metadata filter it was asked with (JSON), or null. */
  filter: string | null;
}

/** Reads what the agent serves for its accepted pairs and its latest `questions` logged questions. */
export async function impactBaseline(agentId: number, questions = IMPACT_QUESTIONS): Promise<ImpactBaseline> {
  const view = AgentView.of(agentId);
  const pairs = pairsToRun(agentId);
  const logged = loggedQuestions(agentId, questions);
  return { pairs, results: await pairResults(view, pairs), questions: logged, firsts: await firstResults(view, logged) };
}

/**
 * One impact (a draft's, or a pair's suggested fixes) per agent at a time, 409 otherwise: each
 * reads every pair and logged question of the agent at least twice.
 */
export const oneImpactAt = <T>(agentId: number, work: () => Promise<T>): Promise<T> =>
  oneAtATime(
    `impact:${agentId}`,
    "An impact preview of this agent",
    "One impact preview runs per agent at a time; try again once it is done.",
    work,
  );

/** The impact of draft `draftId` of the agent. */
export async function draftImpact(agentId: number, draftId: number, opts: ImpactOptions): Promise<DraftImpact> {
  const view = draftView(agentId, draftId); // 404 for another agent's draft
  const before = AgentView.of(agentId);
  const after = AgentView.asDraft(before, draftId);
  try {
    const base = opts.baseline ?? (await impactBaseline(agentId, opts.questions ?? IMPACT_QUESTIONS));
    const results = await pairResults(after, base.pairs);
    const firsts = await firstResults(after, base.questions);
    return {
      draft_id: draftId,
      k: opts.k,
      base_changed: view.base_changed,
      settings: {
        mode: { before: before.agent.retrieval_mode, after: after.agent.retrieval_mode },
        cut: { before: noMatchCut(before.agent, embedder().model), after: noMatchCut(after.agent, embedder().model) },
      },
      pairs: pairFigures(base.pairs, base.results, results, opts.k),
      questions: questionChanges(base, firsts),
    };
  } finally {
    dropDraftKeywords(after);
  }
}

/** The documents a view ranks pairs among: the ready ones, or a draft's view of them. */
function rankingOf(view: AgentView): PairRanking {
  const served = listDocuments(view.id).filter((d) => d.status === "ready");
  const draft = view.draft;
  const docs = draft
    ? [
        ...served.filter((d) => !draft.removed.has(d.id)),
        ...draftDocuments(draft.id)
          .filter((d) => draft.added.has(d.id))
          .map((d) => ({ id: d.id, filename: d.filename })),
      ]
    : served;
  return { docs, cut: noMatchCut(view.agent, embedder().model), mode: view.agent.retrieval_mode };
}

async function pairResults(view: AgentView, pairs: Pair[]): Promise<Map<number, PairResult>> {
  const results: PairResult[] = [];
  if (pairs.length > 0) await rankPairs(view, pairs, rankingOf(view), (batch) => results.push(...batch));
  return new Map(results.map((r) => [r.pair_id!, r]));
}

function pairFigures(pairs: Pair[], before: Map<number, PairResult>, after: Map<number, PairResult>, k: number): DraftImpact["pairs"] {
  const sb = summarizeResults([...before.values()]);
  const sa = summarizeResults([...after.values()]);
  const changed: PairChange[] = [];
  for (const p of pairs) {
    const [rb, ra] = [effectiveRank(before.get(p.id)!), effectiveRank(after.get(p.id)!)];
    if (rb === ra) continue;
    const hit = { before: rb !== null && rb <= k, after: ra !== null && ra <= k };
    changed.push({ pair_id: p.id, query: p.query, expected: p.expected_filename, rank: { before: rb, after: ra }, hit });
  }
  const order = (c: PairChange) => (c.hit.before && !c.hit.after ? 0 : !c.hit.before && c.hit.after ? 1 : 2);
  changed.sort((x, y) => order(x) - order(y) || x.pair_id - y.pair_id);
  const recall = (s: ReturnType<typeof summarizeResults>) => s.recall_at_k[String(k)] ?? 0;
  return {
    count: pairs.length,
    recall_at_k: { before: recall(sb), after: recall(sa) },
    mrr: { before: sb.mrr, after: sa.mrr },
    rescued: changed.filter((c) => order(c) === 1).length,
    broken: changed.filter((c) => order(c) === 0).length,
    changed,
  };
}

const firstOf = (t: RetrievalTrace, r: SearchResult | undefined): FirstResult => {
  return {
    ending: searchEnding(t),
    filename: r?.filename ?? null,
    chunk_index: r?.chunk_index ?? null,
    chunk_text: r?.chunk_text ?? null,
    score: r?.score ?? null,
  };
};

/** The same first result: the same document name and chunk text (a draft's version has another id), or the same ending without one. */
const sameFirst = (x: FirstResult, y: FirstResult) => x.ending === y.ending && x.filename === y.filename && x.chunk_text === y.chunk_text;

function loggedQuestions(agentId: number, limit: number): LoggedQuestion[] {
  if (limit <= 0) return [];
  return loggedQuestionCalls(agentId, { limit }).map((c) => {
    const trace = JSON.parse(c.retrieval) as Partial<RetrievalTrace>;
    return { id: c.id, text: c.text, top_k: typeof trace.top_k === "number" ? trace.top_k : 5, filter: c.filter };
  });
}

const questionKey = (q: { text: string; top_k: number; filter: string | null }) => `${q.top_k}\u0000${q.filter ?? ""}\u0000${q.text}`;

/** Each distinct logged question's first result in a view, read once per top_k in batches as an evaluation reads them. */
async function firstResults(view: AgentView, questions: LoggedQuestion[]): Promise<Map<string, FirstResult>> {
  const out = new Map<string, FirstResult>();
  // Asked with its top_k and the metadata filter it was made with.
  const asked = new Map<string, { topK: number; filter: string | null; texts: Set<string> }>();
  for (const q of questions) {
    const key = `${q.top_k}\u0000${q.filter ?? ""}`;
    const group = asked.get(key) ?? { topK: q.top_k, filter: q.filter, texts: new Set<string>() };
    group.texts.add(q.text);
    asked.set(key, group);
  }
  for (const { topK, filter, texts: set } of asked.values()) {
    const through = asAskedWith(view, filter);
    const texts = [...set];
    for (let i = 0; i < texts.length; i += EVAL_BATCH) {
      const batch = texts.slice(i, i + EVAL_BATCH);
      const trace: RetrievalTrace[] = [];
      const results = await retrieve(through, batch, { topK, trace });
      batch.forEach((text, j) => out.set(questionKey({ text, top_k: topK, filter }), firstOf(trace[j], results[j][0])));
    }
  }
  return out;
}

/** The logged questions whose first result or refusal the draft changes, newest first. */
function questionChanges(base: ImpactBaseline, after: Map<string, FirstResult>): DraftImpact["questions"] {
  const changed = base.questions.flatMap((c): QuestionChange[] => {
    const [x, y] = [base.firsts.get(questionKey(c))!, after.get(questionKey(c))!];
    return sameFirst(x, y) ? [] : [{ call_id: c.id, text: c.text, top_k: c.top_k, before: x, after: y }];
  });
  return { count: base.questions.length, changed };
}
