import type { Agent } from "../db/agents";

/**
 * The agent's no-match cut as it applies now: results farther than it are dropped, so a
 * question whose closest chunk is still far gets no documents. Distances of two embedding
 * models are not comparable, so a cut set for another model than the configured one does not
 * apply (the settings page says so and asks for a new one).
 */
export function noMatchCut(agent: Pick<Agent, "max_distance" | "max_distance_model">, model: string): number | null {
  return agent.max_distance !== null && agent.max_distance_model === model ? agent.max_distance : null;
}

/** True when a result at this distance is dropped by the cut. */
export const beyondCut = (distance: number | null, cut: number | null) => cut !== null && distance !== null && distance > cut;

/**
 * The agent's cut on its reranker's score as it applies now: set for the version serving (another
 * model's or endpoint's scores are not comparable), else none.
 */
export function rerankCutFor(agent: Pick<Agent, "rerank_cut" | "rerank_cut_version">, version: string | undefined): number | null {
  return version !== undefined && agent.rerank_cut !== null && agent.rerank_cut_version === version ? agent.rerank_cut : null;
}

/** True when a result with this reranker score is dropped by the reranker's cut. */
export const belowRerankCut = (score: number | null | undefined, cut: number | null) =>
  cut !== null && (score === null || score === undefined || score < cut);
