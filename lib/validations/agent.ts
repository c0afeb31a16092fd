import { z } from "zod";

export const TOOLS = ["document_search"] as const;
import { RETRIEVAL_MODES, type RetrievalMode } from "../core/retrieval-mode";
import { MAX_RERANK_CANDIDATES, RERANKERS } from "../core/rerankers";

export { RETRIEVAL_MODES, type RetrievalMode };
export type Tool = (typeof TOOLS)[number];

export const agentSchema = z.object({
  name: z.string().trim().min(1, "Name is required.").max(80, "Name is at most 80 characters."),
  tools: z.array(z.enum(TOOLS)).default(["document_search"]),
});
/** Cosine distances run from 0 (same direction) to 2 (opposite). */
export const MAX_COSINE_DISTANCE = 2;

// Every field optional and none defaulted: a change of one setting leaves the others as they are
// (agentSchema's default for `tools` would switch the search tool back on).
export const agentUpdateSchema = z.object({
  name: agentSchema.shape.name.optional(),
  tools: z.array(z.enum(TOOLS)).optional(),
  retrieval_mode: z.enum(RETRIEVAL_MODES, { error: `retrieval_mode must be one of: ${RETRIEVAL_MODES.join(", ")}.` }).optional(),
  max_distance: z
    .number({ error: "max_distance must be a number (a raw distance), or null to clear the cut." })
    .gt(0, "max_distance must be greater than 0.")
    .max(MAX_COSINE_DISTANCE, `max_distance must be at most ${MAX_COSINE_DISTANCE} (the largest cosine distance).`)
    .nullable()
    .optional(),
  /** false: the agent's own searches and asks are logged without their text (no Questions tab). */
  log_questions: z.boolean({ error: "log_questions must be true or false." }).optional(),
  /** The rerank stage (lib/rerank/): which reranker orders the mode's first `rerank_candidates`. */
  reranker: z.enum(RERANKERS, { error: `reranker must be one of: ${RERANKERS.join(", ")}.` }).optional(),
  rerank_candidates: z
    .number({ error: `rerank_candidates must be an integer from 1 to ${MAX_RERANK_CANDIDATES}.` })
    .int(`rerank_candidates must be an integer from 1 to ${MAX_RERANK_CANDIDATES}.`)
    .min(1, `rerank_candidates must be an integer from 1 to ${MAX_RERANK_CANDIDATES}.`)
    .max(MAX_RERANK_CANDIDATES, `rerank_candidates must be an integer from 1 to ${MAX_RERANK_CANDIDATES}.`)
    .optional(),
  mmr_lambda: z
    .number({ error: "mmr_lambda must be a number from 0 to 1." })
    .min(0, "mmr_lambda must be a number from 0 to 1.")
    .max(1, "mmr_lambda must be a number from 0 to 1.")
    .optional(),
  /** A cut on the reranker's score: results it scores below are dropped (null clears it); set for the reranker version serving. */
  rerank_cut: z.number({ error: "rerank_cut must be a number (a reranker score), or null to clear it." }).nullable().optional(),
  /** With `"reranker": "learned"`: the newest model even when it lost its cross-validation. */
  force: z.boolean({ error: "force must be true or false." }).optional(),
});

/** A training request (POST /api/agents/{id}/reranker/train). */
export const rerankTrainSchema = z.object({
  /** The k the with/without decision is made at. */
  k: z
    .number({ error: "k must be an integer from 1 to 20." })
    .int()
    .min(1, "k must be an integer from 1 to 20.")
    .max(20, "k must be an integer from 1 to 20.")
    .default(3),
  folds: z
    .number({ error: "folds must be an integer from 2 to 10." })
    .int()
    .min(2, "folds must be an integer from 2 to 10.")
    .max(10, "folds must be an integer from 2 to 10.")
    .default(5),
  /** false: train and report only; true (default): switch it on when it wins. */
  switch_on: z.boolean({ error: "switch_on must be true or false." }).default(true),
});

export type AgentInput = z.input<typeof agentSchema>;
