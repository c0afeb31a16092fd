import "server-only";
import { env } from "../env.mjs";
import { getAgent } from "../db/agents";
import { findDocument, listDocuments, type DocumentRow } from "../db/documents";
import { pairsToRun, type Pair } from "../db/pairs";
import { failRunningSweeps, getSweep as readSweep, insertSweep, latestSweep as readLatestSweep, updateSweep } from "../db/sweeps";
import { alternativeEmbedder, embedder } from "../embeddings/configured";
import { newFeatureCounts, type CorpusStats, type Embedder } from "../embeddings";
import { conflict, invalid } from "../core/errors";
import { claim as claimKey, holder, type Claim } from "../core/one-at-a-time";
import { chunkText, indexedText } from "../core/chunking";
import { writeChunks } from "../ingest/write-chunks";
import { embedForAgent, failureMessage } from "../retrieval/retrieve";
import { beyondCut, noMatchCut } from "../retrieval/cut";
import { agentVectors, cosineDistance, parseChunkId } from "../vector-store/chunks";
import {
  chunkId,
  createScratchCollection,
  dropCollection,
  dropCollectionsNamed,
  queryDistances,
  type Collection,
} from "../vector-store/client";
import { summarize, type PairOutcome } from "../core/metrics";
import { MAX_SWEEP_ROW_CHUNKS, SWEEP_KS, settingLabel, type SweepRow, type SweepSetting, type SweepView } from "../core/sweep-types";
import { assertRowSizes, tooManyChunks } from "./sweep-size";

/**
 * Chunk-settings sweeps: for each setting, the agent's ready documents are re-chunked from their
 * stored text and embedded into a temporary Chroma collection of their own, the labeled pairs
 * ranked against it, and the collection removed. Temporary collections are named apart from the
 * app's own (`<prefix>_sweep-…`, never matched by ownCollections), so searches, audits and
 * clean-ups never see them; a server stopped mid-sweep leaves some, removed at the next start.
 * The live index changes only when a row is applied, which re-indexes each document.
 */

/** Queries ranked per Chroma call. */
const PAIR_BATCH = 16;
/** The deepest a ranking is read: Chroma refuses much larger results per call. */
const MAX_RANKED = 30_000;

const sweepPrefix = () => `${env().CHROMA_COLLECTION_PREFIX}_sweep-`;

export const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** The agent, for its sweep or apply: one at a time per agent in this process; a second is refused until the claim is released. */
export function claim(agentId: number): Claim {
  const key = `sweep:${agentId}`;
  if (holder(key)) throw conflict("A sweep or an apply is already running for this agent; wait for it to finish.");
  return claimKey(key, "A sweep or an apply of this agent", "Wait for it to finish.");
}

/** Ready documents of the configured model: what the sweep re-chunks and what an apply re-indexes. */
export function sweptDocuments(agentId: number, model: string): DocumentRow[] {
  return listDocuments(agentId).filter((d) => d.status === "ready" && d.embedding_model === model);
}

export const sameSetting = (a: SweepSetting, b: SweepSetting) =>
  a.chunk_size === b.chunk_size &&
  a.chunk_overlap === b.chunk_overlap &&
  a.chunk_strategy === b.chunk_strategy &&
  (a.embedding_model ?? null) === (b.embedding_model ?? null);

/**
 * The settings as a sweep keeps them: the app's own model is left unnamed, and any other model
 * must be the alternative provider's (the only other one the app can embed with).
 */
function normalizeModels(settings: SweepSetting[], model: Embedder): SweepSetting[] {
  const alternative = alternativeEmbedder();
  return settings.map(({ embedding_model, ...s }) => {
    if (embedding_model === undefined || embedding_model === model.model) return s;
    if (embedding_model !== alternative?.model) {
      throw invalid(
        `The embedding model "${embedding_model}" is not available: the app embeds with ${model.model}` +
          (alternative
            ? ` and can compare with ${alternative.model}.`
            : "; configure OpenAI (OPENAI_API_KEY or OPENAI_BASE_URL) to compare with its model."),
      );
    }
    return { ...s, embedding_model };
  });
}

/** The setting most of the documents are indexed with now. */
function currentSetting(docs: DocumentRow[]): SweepSetting | null {
  const counts = new Map<string, { s: SweepSetting; n: number }>();
  for (const d of docs) {
    const s = { chunk_size: d.chunk_size, chunk_overlap: d.chunk_overlap, chunk_strategy: d.chunk_strategy };
    const key = settingLabel(s);
    counts.set(key, { s, n: (counts.get(key)?.n ?? 0) + 1 });
  }
  return [...counts.values()].sort((a, b) => b.n - a.n)[0]?.s ?? null;
}

/**
 * Starts a sweep in the background; `done` settles when every row is measured. `maxRowChunks`
 * (MAX_SWEEP_ROW_CHUNKS; smaller in tests) bounds the chunks a row may make.
 */
export function startSweep(
  agentId: number,
  requested: SweepSetting[],
  k: number,
  { maxRowChunks = MAX_SWEEP_ROW_CHUNKS }: { maxRowChunks?: number } = {},
): { sweep: SweepView; done: Promise<SweepView> } {
  const agent = getAgent(agentId);
  const model = embedder();
  const settings = normalizeModels(requested, model);
  // The agent's no-match cut counts here as in a run: a row answers for this chunking with that cut.
  const cut = noMatchCut(agent, model.model);
  const pairs = pairsToRun(agentId);
  const docs = sweptDocuments(agentId, model.model);
  if (pairs.length === 0) throw invalid("This agent has no labeled pairs to measure the settings with; add or import some first.");
  if (docs.length === 0) throw invalid(`This agent has no ready documents embedded with ${model.model} to re-chunk.`);
  settings.forEach((s, i) => {
    if (settings.findIndex((o) => sameSetting(o, s)) !== i) throw invalid(`The setting ${settingLabel(s)} is listed twice.`);
  });
  assertRowSizes(agentId, settings, docs, maxRowChunks);
  const held = claim(agentId);
  try {
    const current = currentSetting(docs);
    const rows: SweepRow[] = settings.map((s) => ({
      ...s,
      status: "waiting",
      chunks: null,
      recall_at_k: null,
      mrr: null,
      current: current !== null && sameSetting(current, s),
      error: null,
    }));
    const id = insertSweep({
      agent_id: agentId,
      k,
      n_pairs: pairs.length,
      n_documents: docs.length,
      progress_total: settings.length * (docs.length + pairs.length),
      rows,
    });
    const done = runSweep(id, agentId, k, rows, docs, pairs, model, cut, maxRowChunks).finally(() => held.release());
    return { sweep: getSweep(agentId, id), done };
  } catch (err) {
    held.release();
    throw err;
  }
}

async function runSweep(
  id: number,
  agentId: number,
  k: number,
  rows: SweepRow[],
  docs: DocumentRow[],
  pairs: Pair[],
  model: Embedder,
  cut: number | null,
  maxRowChunks: number,
): Promise<SweepView> {
  let progress = 0;
  const step = (n: number) => updateSweep(id, { progress_done: (progress += n) });
  try {
    for (const [i, row] of rows.entries()) {
      rows[i] = { ...row, status: "running" };
      updateSweep(id, { rows });
      try {
        rows[i] = { ...rows[i], ...(await measure(id, i, agentId, k, row, docs, pairs, model, cut, step, maxRowChunks)), status: "done" };
      } catch (err) {
        console.error(`[kb-inspector] sweep ${id}, ${settingLabel(row)}:`, messageOf(err));
        rows[i] = { ...rows[i], status: "failed", error: failureMessage(err, "measurement of this setting") };
      }
      updateSweep(id, { rows });
    }
    const failed = rows.filter((r) => r.status === "failed").length;
    updateSweep(id, { status: failed === rows.length ? "failed" : "done", error: failed === rows.length ? rows[0].error : null });
  } catch (err) {
    console.error(`[kb-inspector] sweep ${id} stopped:`, messageOf(err));
    updateSweep(id, { status: "failed", error: failureMessage(err, "sweep") });
  }
  return getSweep(agentId, id);
}

/** One row: the documents into a temporary collection, the pairs ranked against it, the collection removed. */
async function measure(
  sweepId: number,
  row: number,
  agentId: number,
  k: number,
  setting: SweepSetting,
  docs: DocumentRow[],
  pairs: Pair[],
  model: Embedder,
  cut: number | null,
  step: (n: number) => void,
  maxRowChunks: number,
): Promise<Pick<SweepRow, "chunks" | "recall_at_k" | "mrr">> {
  // A row of the other model embeds documents and queries with it; its query weighting (if it
  // has one) counts the row's own chunks, as the live index would once re-embedded.
  const rowModel = setting.embedding_model ? alternativeEmbedder() : model;
  if (!rowModel || rowModel.model !== (setting.embedding_model ?? model.model))
    throw invalid(`The embedding model ${setting.embedding_model} is no longer configured.`);
  const other = rowModel !== model;
  const collection = await createScratchCollection(`${sweepPrefix()}${sweepId}-${row}`, rowModel.model, { sweep_id: sweepId });
  try {
    const counts = new Map<number, number>();
    const corpus: CorpusStats | null = other && rowModel.countFeatures ? { chunks: 0, df: newFeatureCounts() } : null;
    for (const d of docs) {
      const doc = findDocument(agentId, d.id); // deleted since the sweep started: left out
      if (doc) {
        const chunks = chunkText(doc.text, setting.chunk_size, setting.chunk_overlap, setting.chunk_strategy);
        // What the chunker really makes can exceed the count the sweep was let in with (boundary chunks).
        const made = chunks.length + [...counts.values()].reduce((a, b) => a + b, 0);
        if (made > maxRowChunks) throw tooManyChunks(setting, made, maxRowChunks, "at least");
        await writeChunks({ collection, model: rowModel }, { agentId, documentId: d.id }, chunks);
        counts.set(d.id, chunks.length);
        if (corpus) {
          // What each chunk is indexed by (its table's header first), as the live index counts it.
          await rowModel.countFeatures!(chunks.map(indexedText), corpus.df);
          corpus.chunks += chunks.length;
        }
      }
      step(1);
    }
    const embedQueries = other
      ? (queries: string[]) => (corpus && rowModel.embedQueries ? rowModel.embedQueries(queries, corpus) : rowModel.embed(queries))
      : async (queries: string[]) => (await embedForAgent(agentId, queries)).vectors;
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
    const outcomes: PairOutcome[] = [];
    for (let i = 0; i < pairs.length; i += PAIR_BATCH) {
      const batch = pairs.slice(i, i + PAIR_BATCH);
      outcomes.push(...(await rankPairs(collection, agentId, batch, docs, counts, total, other ? null : cut, embedQueries)));
      step(batch.length);
    }
    const summary = summarize(
      outcomes,
      [...new Set([...SWEEP_KS, k])].sort((a, b) => a - b),
    );
    return { chunks: total, recall_at_k: summary.recall_at_k, mrr: summary.mrr };
  } finally {
    await dropCollection(collection.name).catch((err) => {
      console.error(
        `[kb-inspector] sweep ${sweepId}: temporary collection ${collection.name} is removed at the next start:`,
        messageOf(err),
      );
    });
  }
}

/**
 * Each pair's rank in the temporary collection: the expected document's best chunk by its exact
 * distance (its stored vectors read directly, so an index that cannot reach a chunk does not hide
 * it), placed among the ranking Chroma returns for the agent.
 */
async function rankPairs(
  collection: Collection,
  agentId: number,
  pairs: Pair[],
  docs: DocumentRow[],
  counts: Map<number, number>,
  total: number,
  cut: number | null,
  embedQueries: (queries: string[]) => Promise<number[][]>,
): Promise<PairOutcome[]> {
  const vectors = await embedQueries(pairs.map((p) => p.query));
  const ranking = await queryDistances(collection, {
    queryEmbeddings: vectors,
    nResults: Math.max(1, Math.min(total, MAX_RANKED)),
    where: { agent_id: agentId },
  });
  const idsOf = (filename: string) => docs.filter((d) => d.filename === filename && counts.has(d.id)).map((d) => d.id);
  const wanted = [...new Set(pairs.flatMap((p) => idsOf(p.expected_filename)))];
  const stored = await agentVectors(
    collection,
    agentId,
    wanted.flatMap((id) => Array.from({ length: counts.get(id)! }, (_, c) => chunkId(id, c))),
  );
  return pairs.map((p, q) => {
    const mine = new Set(idsOf(p.expected_filename));
    if (mine.size === 0) return { rank: null, missing: true };
    const best = Math.min(...stored.filter((v) => mine.has(v.document_id)).map((v) => cosineDistance(vectors[q], v.embedding)));
    const distances = ranking.distances[q].map((d) => d ?? Number.POSITIVE_INFINITY);
    const ids = ranking.ids[q];
    // Closer chunks of other documents come first; the expected document's own chunks do not count.
    let before = 0;
    for (let j = 0; j < ids.length && distances[j] < best - 1e-9; j++) if (!mine.has(parseChunkId(ids[j])?.document_id ?? -1)) before++;
    const readAll = ids.length >= total;
    const beyond = !readAll && ids.length > 0 && best > distances[ids.length - 1];
    return { rank: beyond ? null : before + 1, missing: false, beyond_cut: beyondCut(best, cut) };
  });
}

/** `current` is worked out on each read: after an apply, the applied row is the current one. */
function withCurrent(sweep: SweepView): SweepView {
  const current = currentSetting(sweptDocuments(sweep.agent_id, embedder().model));
  return { ...sweep, rows: sweep.rows.map((r) => ({ ...r, current: current !== null && sameSetting(current, r) })) };
}

export const getSweep = (agentId: number, id: number) => withCurrent(readSweep(agentId, id));

export function latestSweep(agentId: number): SweepView | null {
  const sweep = readLatestSweep(agentId);
  return sweep && withCurrent(sweep);
}

/** At start: sweeps a stopped server left running are failed and their temporary collections removed. */
export async function recoverSweeps(): Promise<number> {
  const failed = failRunningSweeps("The server stopped during the sweep; run it again.");
  await removeSweepCollections();
  return failed;
}

/** Removes every temporary sweep collection of this app (none belongs to a running sweep at start). */
export async function removeSweepCollections(): Promise<number> {
  return dropCollectionsNamed(sweepPrefix());
}
