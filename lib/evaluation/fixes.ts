import "server-only";
import { z } from "zod";
import { AgentView } from "../db/agent-view";
import { findDocument, getDocument, listDocuments } from "../db/documents";
import { createDraft, getDraft } from "../db/drafts";
import { getPair } from "../db/pairs";
import { conflict, invalid } from "../core/errors";
import { embedder } from "../embeddings/configured";
import { changeChunk, documentCuration } from "../ingest/curate";
import { discard, rechunkInDraft, stageSettings } from "../ingest/drafts";
import { noMatchCut } from "../retrieval/cut";
import { embedForAgent, locate, retrieve } from "../retrieval/retrieve";
import { collectionFor } from "../vector-store/client";
import { documentOfChunk } from "../db/chunks";
import { RETRIEVAL_MODES, type RetrievalMode } from "../validations/agent";
import { MAX_CHUNK_QUESTIONS } from "../validations/curation";
import { draftImpact, impactBaseline, type DraftImpact, type ImpactBaseline, type PairChange, type QuestionChange } from "./impact";

/**
 * Suggested fixes for a labeled pair the agent misses: concrete changes, each staged in a draft
 * of its own and scored by the draft's impact (lib/evaluation/impact.ts), then discarded. A fix
 * "rescues" the pair when, with it, the expected document ranks within k (and inside the cut);
 * its regressions are the pairs it would push out of the first k and the logged questions it
 * would leave unanswered. Each candidate is read for the pair alone first, and only one that
 * rescues it over every pair and question (`scored`): a keyword or hybrid candidate read over
 * 1,000 pairs costs about as much as a run in that mode. The candidates:
 *   questions  the pair's question attached to the expected document's nearest chunk
 *   switch_off a chunk of another document that ranks ahead of it (the impact tells whether it is
 *              noise: switching it off then breaks nothing)
 *   rechunk    the expected document re-chunked at half and at twice its chunk size
 *   mode       each other retrieval mode
 *   cut        a no-match cut just past the expected document, when the cut drops it
 * An edit of a chunk's text is not suggested: the text is the editor's to write.
 */

/** A change a fix stages, as POST /api/agents/{id}/drafts `{"fix"}` takes it. */
export const fixChangeSchema = z.discriminatedUnion(
  "kind",
  [
    z.strictObject({ kind: z.literal("questions"), chunk_id: z.number().int().positive(), question: z.string().trim().min(1).max(2000) }),
    z.strictObject({ kind: z.literal("switch_off"), chunk_id: z.number().int().positive() }),
    z.strictObject({
      kind: z.literal("rechunk"),
      document_id: z.number().int().positive(),
      chunk_size: z.number().int().min(1).max(100_000),
      chunk_overlap: z.number().int().min(0).max(100_000),
    }),
    z.strictObject({ kind: z.literal("mode"), retrieval_mode: z.enum(RETRIEVAL_MODES) }),
    z.strictObject({ kind: z.literal("cut"), max_distance: z.number().gt(0).max(2) }),
  ],
  { error: "fix.kind must be one of: questions, switch_off, rechunk, mode, cut." },
);
export type FixChange = z.infer<typeof fixChangeSchema>;

export type SuggestedFix = {
  title: string;
  change: FixChange;
  /** With it, the pair's expected document ranks within k, inside the cut. */
  rescues: boolean;
  rank: { before: number | null; after: number | null };
} & (
  | {
      /** Read over every pair and logged question: only a fix that rescues the pair is. */
      scored: true;
      recall_at_k: DraftImpact["pairs"]["recall_at_k"];
      mrr: DraftImpact["pairs"]["mrr"];
      regressions: { pairs: PairChange[]; questions: QuestionChange[] };
      /** Pairs it rescues beside this one. */
      also_rescues: PairChange[];
    }
  | { scored: false }
);

export interface PairFixes {
  pair_id: number;
  query: string;
  expected: string;
  k: number;
  /** Where the expected document ranks now (null: not found, or past the cut). */
  rank: number | null;
  missed: boolean;
  /** Best first: rescues with no regression, then rescues with the fewest, then the rest by rank. */
  fixes: SuggestedFix[];
}

/** Stages a fix's change in a draft (the document's version there, or the served one). */
export async function stageFix(agentId: number, draftId: number, change: FixChange, actor: string | null): Promise<void> {
  getDraft(agentId, draftId);
  switch (change.kind) {
    case "questions": {
      const { chunk } = chunkOf(agentId, change.chunk_id, draftId);
      if (chunk.questions.includes(change.question)) throw conflict("The chunk answers this question already.");
      if (chunk.questions.length >= MAX_CHUNK_QUESTIONS)
        throw invalid(`questions: a chunk answers at most ${MAX_CHUNK_QUESTIONS} questions.`);
      await changeChunk(agentId, change.chunk_id, { questions: [...chunk.questions, change.question] }, actor, { draftId });
      return;
    }
    case "switch_off":
      chunkOf(agentId, change.chunk_id, draftId);
      await changeChunk(agentId, change.chunk_id, { enabled: false }, actor, { draftId });
      return;
    case "rechunk": {
      if (change.chunk_overlap >= change.chunk_size) throw invalid("fix.chunk_overlap must be smaller than fix.chunk_size.");
      const doc = getDocument(agentId, change.document_id);
      await rechunkInDraft(agentId, draftId, doc.id, {
        chunkSize: change.chunk_size,
        chunkOverlap: change.chunk_overlap,
        chunkStrategy: doc.chunk_strategy,
      });
      return;
    }
    case "mode":
      stageSettings(agentId, draftId, { retrieval_mode: change.retrieval_mode });
      return;
    case "cut":
      stageSettings(agentId, draftId, { cut: { maxDistance: change.max_distance, model: embedder().model } });
      return;
  }
}

/** A chunk by its id, in the draft's version of its document or the served one (422 when the agent has none such). */
function chunkOf(agentId: number, chunkId: number, draftId: number) {
  const docId = documentOfChunk(agentId, chunkId, draftId);
  const doc = docId === undefined ? undefined : findDocument(agentId, docId);
  const chunk = doc && documentCuration(doc).chunks.find((c) => c.id === chunkId);
  if (!doc || !chunk) throw invalid(`fix.chunk_id: chunk ${chunkId} is not a chunk of a document of this agent.`);
  return { doc, chunk };
}

/** The chunk id of a served chunk by its place in the indexes. */
function chunkIdAt(agentId: number, documentId: number, chunkIndex: number): number | null {
  const doc = findDocument(agentId, documentId);
  return doc ? (documentCuration(doc).chunks.find((c) => c.indexed === chunkIndex)?.id ?? null) : null;
}

const DEPTH = 10;
const clampSize = (n: number) => Math.max(100, Math.min(4_000, Math.round(n)));

/** The candidate changes for one missed pair, before they are scored. */
async function candidates(
  view: AgentView,
  query: string,
  expected: string,
  best: number | null,
): Promise<{ title: string; change: FixChange }[]> {
  const agentId = view.id;
  const docs = listDocuments(agentId).filter((d) => d.status === "ready" && d.filename === expected);
  const out: { title: string; change: FixChange }[] = [];
  const mode = view.agent.retrieval_mode;
  // What the agent returns for the question, in its mode, and where the expected document is among it.
  const [results] = await retrieve(view, [query], { topK: DEPTH });
  const wanted = new Set(docs.map((d) => d.id));
  const at = results.findIndex((r) => wanted.has(r.document_id));
  // Its nearest chunk: the first of its results, or else its best located one (the nearest by distance).
  const target =
    at >= 0
      ? { document_id: results[at].document_id, chunk_index: results[at].chunk_index }
      : await nearestChunkOf(view, query, [...wanted]);
  if (target) {
    const id = chunkIdAt(agentId, target.document_id, target.chunk_index);
    if (id !== null)
      out.push({
        title: `Attach the question to chunk ${target.chunk_index + 1} of ${expected}`,
        change: { kind: "questions", chunk_id: id, question: query },
      });
  }
  for (const r of (at >= 0 ? results.slice(0, at) : results).filter((r) => !wanted.has(r.document_id)).slice(0, 2)) {
    const id = chunkIdAt(agentId, r.document_id, r.chunk_index);
    if (id !== null)
      out.push({
        title: `Switch off chunk ${r.chunk_index + 1} of ${r.filename}, which ranks ahead`,
        change: { kind: "switch_off", chunk_id: id },
      });
  }
  for (const d of docs.slice(-1)) {
    for (const size of new Set([clampSize(d.chunk_size / 2), clampSize(d.chunk_size * 2)])) {
      if (size === d.chunk_size) continue;
      const overlap = Math.min(size - 1, Math.round((d.chunk_overlap / d.chunk_size) * size));
      out.push({
        title: `Re-chunk ${expected} at ${size} characters`,
        change: { kind: "rechunk", document_id: d.id, chunk_size: size, chunk_overlap: overlap },
      });
    }
  }
  for (const m of RETRIEVAL_MODES.filter((m): m is RetrievalMode => m !== mode))
    out.push({ title: `Switch the agent to ${m} mode`, change: { kind: "mode", retrieval_mode: m } });
  const cut = noMatchCut(view.agent, embedder().model);
  if (cut !== null && best !== null && best > cut) {
    const past = Math.min(2, Math.ceil((best + 0.005) * 100) / 100);
    out.push({ title: `Move the no-match cut to ${past}`, change: { kind: "cut", max_distance: past } });
  }
  return out;
}

async function nearestChunkOf(view: AgentView, query: string, ids: number[]) {
  if (ids.length === 0) return null;
  const { model, vectors } = await embedForAgent(view, [query]);
  const [location] = await locate(view, await collectionFor(model), vectors, [ids], 1);
  const c = location?.chunks[0];
  return c ? { document_id: c.document_id, chunk_index: c.chunk_index } : null;
}

/** Suggested fixes for pair `pairId`, each scored by the impact of a draft that holds it alone. */
export async function suggestFixes(agentId: number, pairId: number, k: number, opts: { questions?: number } = {}): Promise<PairFixes> {
  const pair = getPair(agentId, pairId);
  const baseline: ImpactBaseline = await impactBaseline(agentId, opts.questions);
  const now = baseline.results.get(pair.id);
  const rank = now && !now.beyond_cut ? now.rank : null;
  const head = { pair_id: pair.id, query: pair.query, expected: pair.expected_filename, k, rank };
  if (!now || now.missing || !now.answerable) {
    throw invalid(
      now?.missing
        ? `The agent has no document named "${pair.expected_filename}": upload it before looking for a fix.`
        : "This pair expects no document: there is no rank to fix.",
    );
  }
  if (rank !== null && rank <= k) return { ...head, missed: false, fixes: [] };
  const fixes: SuggestedFix[] = [];
  // The pair alone first: a candidate that does not rescue it is not read over everything else.
  const alone: ImpactBaseline = { pairs: [pair], results: new Map([[pair.id, now]]), questions: [], firsts: new Map() };
  for (const c of await candidates(AgentView.of(agentId), pair.query, pair.expected_filename, now.best_distance)) {
    const draft = createDraft(agentId, `Suggested fix: ${c.title}`);
    try {
      await stageFix(agentId, draft.id, c.change, null);
      const own = (await draftImpact(agentId, draft.id, { k, baseline: alone })).pairs.changed[0];
      const rescues = own?.hit.after ?? false;
      if (!rescues) {
        fixes.push({ ...c, rescues, rank: own ? own.rank : { before: rank, after: rank }, scored: false });
        continue;
      }
      const impact = await draftImpact(agentId, draft.id, { k, baseline });
      const mine = impact.pairs.changed.find((p) => p.pair_id === pair.id)!;
      const others = impact.pairs.changed.filter((p) => p.pair_id !== pair.id);
      fixes.push({
        ...c,
        rescues,
        rank: mine.rank,
        scored: true,
        recall_at_k: impact.pairs.recall_at_k,
        mrr: impact.pairs.mrr,
        regressions: {
          pairs: others.filter((p) => p.hit.before && !p.hit.after),
          questions: impact.questions.changed.filter((q) => q.before.ending === "answered" && q.after.ending !== "answered"),
        },
        also_rescues: others.filter((p) => !p.hit.before && p.hit.after),
      });
    } finally {
      await discard(agentId, draft.id);
    }
  }
  const cost = (f: SuggestedFix) => (f.scored ? f.regressions.pairs.length + f.regressions.questions.length : 0);
  const mrr = (f: SuggestedFix) => (f.scored ? (f.mrr.after ?? 0) : 0);
  fixes.sort(
    (a, b) =>
      Number(b.rescues) - Number(a.rescues) ||
      cost(a) - cost(b) ||
      (a.rank.after ?? Infinity) - (b.rank.after ?? Infinity) ||
      mrr(b) - mrr(a),
  );
  return { ...head, missed: true, fixes };
}
