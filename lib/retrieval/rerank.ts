import "server-only";
import type { Agent } from "../db/agents";
import { chunkKey } from "../db/chunks";
import { findModel } from "../db/rerankers";
import { AppError } from "../core/errors";
import { notConfigured } from "../rerank/errors";
import type { FeatureCandidate } from "../rerank/features";
import { learnedReranker } from "../rerank/learned";
import { mmrReranker } from "../rerank/mmr";
import { httpReranker } from "../rerank/http";
import { chatReranker } from "../rerank/chat";
import { shownChunks } from "./shown-chunks";
import type { PlacedChunk, RankStage, ReadContext, ReadRerank } from "./read-types";

/**
 * The rerank stage of the read path (lib/retrieval/read-path.ts), with the rerankers of lib/rerank/: the agent's mode hands on its
 * first `rerank_candidates` (the pool), the agent's reranker scores them, and the pool is put in
 * that order (higher first; ties keep the pool's order) and cut to top_k. `score` stays each
 * chunk's raw distance; where the reranker put it travels beside it (`rerank`).
 */

/**
 * The agent's reranker as its reads run it, or undefined for `none`. A learned model is read by
 * the agent's own id, so a model never ranks for another agent; a learned setting without a model
 * of its own (it cannot be set so, but a restore may leave it) ranks as `none`.
 */
export function rerankFor(
  agent: Pick<Agent, "id" | "reranker" | "rerank_candidates" | "mmr_lambda" | "reranker_model_id">,
): ReadRerank | undefined {
  const candidates = agent.rerank_candidates;
  switch (agent.reranker) {
    case "none":
      return undefined;
    case "mmr":
      return { reranker: mmrReranker(agent.mmr_lambda), candidates };
    case "learned": {
      const model = agent.reranker_model_id === null ? undefined : findModel(agent.id, agent.reranker_model_id);
      return model && { reranker: learnedReranker(model), candidates };
    }
    case "http": {
      const reranker = httpReranker();
      if (!reranker) throw new AppError("reranker_failed", notConfigured.http);
      return { reranker, candidates };
    }
    case "chat": {
      const reranker = chatReranker();
      if (!reranker) throw new AppError("reranker_failed", notConfigured.chat);
      return { reranker, candidates };
    }
  }
}

/** Each query's pool as the rerankers see it: text, document name and attached questions; a chunk no longer shown is left out. */
export function poolCandidates(read: ReadContext, lists: PlacedChunk[][]): { chunk: PlacedChunk; candidate: FeatureCandidate }[][] {
  const rows = shownChunks(read.agent, lists.flat());
  return lists.map((pool) =>
    pool.flatMap((chunk, i) => {
      const row = rows.get(chunkKey(chunk.document_id, chunk.chunk_index));
      if (!row) return [];
      const candidate: FeatureCandidate = {
        document_id: chunk.document_id,
        chunk_index: chunk.chunk_index,
        filename: row.filename,
        text: row.text,
        distance: chunk.score,
        pool_rank: i + 1,
        vector_rank: chunk.places ? chunk.places.vector_rank : i + 1,
        keyword_rank: chunk.places?.keyword_rank ?? null,
        bm25: chunk.places?.bm25 ?? null,
        ...(row.questions ? { questions: JSON.parse(row.questions) as string[] } : {}),
      };
      return [{ chunk, candidate }];
    }),
  );
}

/** Each query's whole pool in the reranker's order, each chunk with its reranker score and its place before. */
export async function rerankPools(read: ReadContext, lists: PlacedChunk[][], rerank: ReadRerank): Promise<PlacedChunk[][]> {
  const pools = poolCandidates(read, lists);
  return Promise.all(
    pools.map(async (pool, q) => {
      if (pool.length === 0) return [];
      const scores = await rerank.reranker.score(
        read.queries[q],
        read.vectors[q],
        pool.map((p) => p.candidate),
      );
      return pool
        .map(({ chunk, candidate }, i) => ({
          ...chunk,
          rerank: { rerank_score: scores[i].score, pool_rank: candidate.pool_rank, rerank_features: scores[i].features },
        }))
        .sort((a, b) => b.rerank.rerank_score - a.rerank.rerank_score || a.rerank.pool_rank - b.rerank.pool_rank);
    }),
  );
}

/** The stage: without a reranker, the first top_k as the mode ordered them; with one, the pool reordered, then the first top_k. */
export const reranked: RankStage = async (read, lists, opts) =>
  opts.rerank
    ? (await rerankPools(read, lists, opts.rerank)).map((hits) => hits.slice(0, opts.topK))
    : lists.map((hits) => hits.slice(0, opts.topK));

/** The version of the reranker the agent ranks with now; undefined without one, or when it cannot be built (an endpoint not configured). */
export function servingVersion(agent: Parameters<typeof rerankFor>[0]): string | undefined {
  try {
    return rerankFor(agent)?.reranker.version;
  } catch {
    return undefined;
  }
}
