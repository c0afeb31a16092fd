import "server-only";
import { createAgent } from "../../lib/db/agents";
import { DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE, chunkText, type ChunkSettings } from "../../lib/core/chunking";
import { getDocument } from "../../lib/db/documents";
import type { Embedder } from "../../lib/embeddings";
import { useEmbedder as useConfiguredEmbedder } from "../../lib/embeddings/configured";
import { ingestFile } from "../../lib/ingest/pipeline";
import { bestRanks, rankAllChunks, retrieve } from "../../lib/retrieval/retrieve";
import type { RetrievalMode } from "../../lib/validations/agent";
import { Bm25Index } from "./bm25";
import type { FaqArticle } from "./debian-faq";
import { quality, rankOf, type Quality } from "./metrics";

/**
 * Runs a labeled set through the product's own code: ingest (extraction, chunking (default or given),
 * embedding, Chroma) and the one search function, ranking all of an agent's chunks per question.
 */

/** Makes `e` the process's configured embedder (lib/embeddings/configured.ts keeps it as process state). */
export function useEmbedder(e: Embedder): void {
  useConfiguredEmbedder(e);
}

export interface IndexedSet {
  agentId: number;
  /** Document id of each article, in article order. */
  documentIds: number[];
  chunkCount: number;
  ingestMs: number;
}

export async function indexArticles(
  name: string,
  articles: FaqArticle[],
  e: Embedder,
  settings: ChunkSettings = { chunkSize: DEFAULT_CHUNK_SIZE, chunkOverlap: DEFAULT_CHUNK_OVERLAP },
): Promise<IndexedSet> {
  useEmbedder(e);
  const agent = createAgent({ name, tools: ["document_search"] });
  const documentIds: number[] = [];
  let chunkCount = 0;
  const started = performance.now();
  for (const a of articles) {
    const r = await ingestFile(agent.id, { filename: a.filename, bytes: new TextEncoder().encode(a.html) }, settings);
    if (r.status !== "ready" || r.document_id === null) throw new Error(`${a.filename} was not indexed: ${r.message}`);
    documentIds.push(r.document_id);
    chunkCount += r.chunk_count;
  }
  return { agentId: agent.id, documentIds, chunkCount, ingestMs: performance.now() - started };
}

/** 1-based rank of each article's first chunk for its own question (null: not retrieved). */
export async function rankQuestions(set: IndexedSet, articles: FaqArticle[], e: Embedder): Promise<(number | null)[]> {
  useEmbedder(e);
  const rankings = await rankAllChunks(
    set.agentId,
    articles.map((a) => a.question),
  );
  return rankings.map((ranking, i) => bestRanks(ranking).get(set.documentIds[i])?.rank ?? null);
}

/**
 * 1-based rank of each article's first chunk in the product's search in another retrieval mode,
 * reading the first `depth` results (null: not among them, 0 in MRR).
 */
export async function rankQuestionsInMode(
  set: IndexedSet,
  articles: FaqArticle[],
  e: Embedder,
  mode: RetrievalMode,
  depth = 20,
): Promise<(number | null)[]> {
  useEmbedder(e);
  const results = await retrieve(
    set.agentId,
    articles.map((a) => a.question),
    { topK: depth, mode },
  );
  return results.map((hits, i) => {
    const at = hits.findIndex((h) => h.document_id === set.documentIds[i]);
    return at < 0 ? null : at + 1;
  });
}

/** The stored chunks of an indexed set, exactly as the vector index holds them. */
export function storedChunks(set: IndexedSet): { documentId: number; text: string }[] {
  return set.documentIds.flatMap((id) => {
    const doc = getDocument(set.agentId, id);
    return chunkText(doc.text, doc.chunk_size, doc.chunk_overlap, doc.chunk_strategy).map((c) => ({ documentId: id, text: c.text }));
  });
}

/** How many stored chunks start or end inside a word: what a reader sees as damaged text. */
export function midWordChunks(set: IndexedSet): number {
  const inside = (t: string, i: number) => i > 0 && i < t.length && /\S/.test(t[i - 1]) && /\S/.test(t[i]);
  let n = 0;
  for (const id of set.documentIds) {
    const doc = getDocument(set.agentId, id);
    for (const c of chunkText(doc.text, doc.chunk_size, doc.chunk_overlap, doc.chunk_strategy)) {
      if (inside(doc.text, c.start) || inside(doc.text, c.end)) n++;
    }
  }
  return n;
}

export function rankWithBm25(set: IndexedSet, articles: FaqArticle[], processTerm?: (term: string) => string | null): (number | null)[] {
  const chunks = storedChunks(set);
  const index = new Bm25Index(
    chunks.map((c) => c.text),
    processTerm,
  );
  return articles.map((a, i) => rankOf(index.rank(a.question), (c) => chunks[c].documentId === set.documentIds[i]));
}

export interface SplitQuality {
  all: Quality;
  tune: Quality;
  check: Quality;
}

export function splitQuality(ranks: (number | null)[], articles: FaqArticle[], tune: Set<string>): SplitQuality {
  const pick = (inTune: boolean) => ranks.filter((_, i) => tune.has(articles[i].filename) === inTune);
  return { all: quality(ranks), tune: quality(pick(true)), check: quality(pick(false)) };
}
