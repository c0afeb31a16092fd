import "server-only";
import { getAgent, updateAgent, type Agent } from "../db/agents";
import { labelsStamp, latestModel, latestWinningModel, findModel, type RerankerModel } from "../db/rerankers";
import { invalid } from "../core/errors";
import { env } from "../env.mjs";
import { chatClient } from "../embeddings/openai/chat-client";
import { notConfigured } from "./errors";
import { learnedVersion } from "./learned";
import type { RerankerName } from "./types";

/** A model as the API and the page show it: its version, labels, mode, cross-validation and when it was trained. */
export const modelView = (m: RerankerModel) => ({
  version: m.id,
  name: learnedVersion(m),
  mode: m.mode,
  labels: m.labels,
  wins: m.wins,
  cross_validation: m.cross_validation,
  trained_at: m.created_at,
});

/** The agent's rerank settings, the model it serves, the newest trained, and whether the labels changed since. */
export function rerankerStatus(agentId: number) {
  const agent = getAgent(agentId);
  const serving = agent.reranker_model_id === null ? undefined : findModel(agentId, agent.reranker_model_id);
  const latest = latestModel(agentId);
  return {
    reranker: agent.reranker,
    rerank_candidates: agent.rerank_candidates,
    mmr_lambda: agent.mmr_lambda,
    model: serving ? modelView(serving) : null,
    latest: latest ? modelView(latest) : null,
    /** The labels changed since the newest model was trained: training again learns from them. */
    labels_changed: latest ? latest.labels_stamp !== labelsStamp(agentId) : null,
    available: { http: env().RERANK_BASE_URL !== undefined, chat: chatClient() !== null },
  };
}

/**
 * A change of reranker, checked: `learned` switches on the agent's newest model that won its
 * cross-validation (none, or only losing ones: 422 saying so, unless `force`, which takes the
 * newest model whatever its outcome); `http` and `chat` need their
 * endpoint configured. Candidates and lambda are stored as given.
 */
export function rerankerChange(
  agent: Agent,
  input: { reranker?: RerankerName; rerank_candidates?: number; mmr_lambda?: number; force?: boolean },
): { reranker?: RerankerName; rerank_candidates?: number; mmr_lambda?: number; reranker_model_id?: number | null } {
  const { force, ...out } = input as typeof input & { reranker_model_id?: number | null };
  if (input.reranker === "learned") {
    // `force`: the newest model even if it lost (to measure it, or to judge it in the inspector); the run records which.
    const winning = force ? latestModel(agent.id) : latestWinningModel(agent.id);
    if (!winning) {
      const latest = latestModel(agent.id);
      if (!latest) throw invalid(notConfigured.learned.replace("{id}", String(agent.id)));
      const cv = latest.cross_validation;
      throw invalid(
        `The learned reranker is not switched on: its newest model (v${latest.id}) does not beat the ${latest.mode} order on questions it was not trained on ` +
          `(MRR ${cv.without.mrr.toFixed(3)} without, ${cv.with.mrr.toFixed(3)} with). Label more questions and train again, ` +
          'or send "force": true to switch it on anyway.',
      );
    }
    out.reranker_model_id = winning.id;
  }
  if (input.reranker === "http" && env().RERANK_BASE_URL === undefined) throw invalid(notConfigured.http);
  if (input.reranker === "chat" && chatClient() === null) throw invalid(notConfigured.chat);
  return out;
}

/** Applies a checked change of reranker settings. */
export const setReranker = (agentId: number, input: Parameters<typeof rerankerChange>[1]): Agent =>
  updateAgent(agentId, rerankerChange(getAgent(agentId), input));
