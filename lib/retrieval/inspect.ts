import "server-only";
import { getAgent } from "../db/agents";
import { collectionFor } from "../vector-store/client";
import { findDocument } from "../db/documents";
import { embedder } from "../embeddings/configured";
import type { QueryWord } from "../embeddings";
import { explainQueryForAgent, logged, retrieve, type SearchResult } from "./retrieve";
import { documentChunks } from "../vector-store/chunks";

export const CHART_RESULTS = 50;

export interface ExpectedDiagnosis {
  document_id: number;
  filename: string;
  /** False when the document is gone or not ready: it cannot be retrieved at all. */
  indexed: boolean;
  best_rank: number | null;
  best_distance: number | null;
  chunks: { chunk_index: number; rank: number; distance: number; chunk_text: string }[];
}

export interface Inspection {
  /** The first top_k chunks of the ranking below: what the agent's search returns for this query and k. */
  results: SearchResult[];
  total_chunks: number;
  /** Distances of the first results, closest first, for the distance chart. */
  distances: number[];
  expected: ExpectedDiagnosis | null;
  /** The query's words with how much each counts in this agent (local embedder); null otherwise. */
  query_words: QueryWord[] | null;
}

/**
 * Everything the inspector shows for one query, from one embedding and one full ranking
 * (no k limit): the top_k list is the head of the same ranking the diagnosis reads, so the
 * two cannot disagree at the cut. Works with the agent's tool switched off, so an admin can
 * test an agent before enabling it; logged as an inspector search, not as the agent's call.
 */
export async function inspectQuery(agentId: number, query: string, topK: number, expectedDocumentId?: number): Promise<Inspection> {
  getAgent(agentId);
  const { results: [results], rankings: [ranking] } = await logged(
    agentId,
    "inspector",
    { query, top_k: topK },
    () => retrieve(agentId, [query], { topK, full: true }),
    (r) => r.results[0].length,
  );

  let expected: ExpectedDiagnosis | null = null;
  if (expectedDocumentId !== undefined) {
    const doc = findDocument(agentId, expectedDocumentId);
    const collection = await collectionFor(embedder());
    const texts = new Map((await documentChunks(collection, agentId, expectedDocumentId)).map((c) => [c.metadata.chunk_index, c.text]));
    const chunks = ranking
      .map((r, i) => ({ r, rank: i + 1 }))
      .filter(({ r }) => r.document_id === expectedDocumentId)
      .map(({ r, rank }) => ({ chunk_index: r.chunk_index, rank, distance: r.score, chunk_text: texts.get(r.chunk_index) ?? "" }));
    expected = {
      document_id: expectedDocumentId,
      filename: doc?.filename ?? `document ${expectedDocumentId}`,
      indexed: doc?.status === "ready" && chunks.length > 0,
      best_rank: chunks[0]?.rank ?? null,
      best_distance: chunks[0]?.distance ?? null,
      chunks,
    };
  }
  const explained = await explainQueryForAgent(agentId, query);
  return {
    results,
    total_chunks: ranking.length,
    distances: ranking.slice(0, CHART_RESULTS).map((r) => r.score),
    expected,
    query_words: explained?.words ?? null,
  };
}
