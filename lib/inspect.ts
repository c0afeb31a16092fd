import "server-only";
import { getAgent } from "./agents";
import { findDocument } from "./documents";
import { forbidden } from "./errors";
import { collectionFor } from "./chroma";
import { embedder } from "./embedder";
import type { QueryWord } from "./embeddings";
import { explainQueryForAgent, rankAllChunks } from "./search";
import { documentChunks } from "./vectors";

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
  total_chunks: number;
  /** Distances of the first results, closest first, for the distance chart. */
  distances: number[];
  expected: ExpectedDiagnosis | null;
  /** The query's words with how much each counts in this agent (local embedder); null otherwise. */
  query_words: QueryWord[] | null;
}

/**
 * Where everything ranks for one query, with no k limit: the distance curve and,
 * for an expected document, the rank of each of its chunks.
 */
export async function inspectQuery(agentId: number, query: string, expectedDocumentId?: number): Promise<Inspection> {
  const agent = getAgent(agentId);
  if (!agent.tools.includes("document_search")) {
    throw forbidden(`Agent "${agent.name}" does not have the document_search tool enabled.`);
  }
  const [ranking] = await rankAllChunks(agentId, [query]);
  let expected: ExpectedDiagnosis | null = null;
  if (expectedDocumentId !== undefined) {
    const doc = findDocument(agentId, expectedDocumentId);
    const texts = new Map(
      (await documentChunks(await collectionFor(embedder()), agentId, expectedDocumentId)).map((c) => [c.metadata.chunk_index, c.text]),
    );
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
    total_chunks: ranking.length,
    distances: ranking.slice(0, CHART_RESULTS).map((r) => r.score),
    expected,
    query_words: explained?.words ?? null,
  };
}
