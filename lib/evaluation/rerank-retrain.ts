import "server-only";
import { agentsWithLearnedReranker, labelsStamp, latestModel } from "../db/rerankers";
import { AppError } from "../core/errors";
import { isVectorStoreUnavailable } from "../vector-store/client";
import { trainReranker } from "./rerank-train";

/**
 * Training again when the labels change: an agent that ranks with its learned reranker gets a new
 * model once its labels (accepted pairs, labeled questions, accepted generated questions,
 * attached questions) differ from those its newest model learned from. The new model replaces
 * the serving one only when it wins its cross-validation, as a trained one always does; one that
 * loses is kept as the newest, so the same labels are not trained on again.
 */

/** How often the watch looks for agents whose labels changed: a change is learned within this. */
export const RETRAIN_LOOK_MS = 30_000;

// Labels a training already failed on (too few of them, say), by agent: not tried again until they change.
const failedOn = new Map<number, string>();

/** The agents ranking with a learned model whose labels changed since their newest model (and since a training failed on them). */
export function agentsToRetrain(): number[] {
  return agentsWithLearnedReranker().filter((id) => {
    const latest = latestModel(id);
    const stamp = labelsStamp(id);
    return latest !== undefined && latest.labels_stamp !== stamp && failedOn.get(id) !== stamp;
  });
}

/** Trains the agents whose labels changed, one at a time; returns the ones trained. */
export async function retrainChanged(): Promise<number[]> {
  const trained: number[] = [];
  for (const agentId of agentsToRetrain()) {
    try {
      const report = await trainReranker(agentId);
      console.log(`[kb-inspector] the learned reranker of agent ${agentId} was trained again on its changed labels: ${report.reason}`);
      trained.push(agentId);
    } catch (err) {
      // An evaluation holds the agent: the next look tries again. Too few labels: a person sees it in the settings.
      if (err instanceof AppError && (err.code === "conflict" || err.code === "not_found")) continue;
      if (isVectorStoreUnavailable(err)) throw err;
      failedOn.set(agentId, labelsStamp(agentId));
      console.error(
        `[kb-inspector] training the learned reranker of agent ${agentId} again failed:`,
        err instanceof Error ? err.message : err,
      );
    }
  }
  return trained;
}

/** Starts the watch: every `lookMs` it trains the agents whose labels changed. Returns the stop (lib/runtime/services.ts). */
export function watchRetraining(lookMs = RETRAIN_LOOK_MS): () => void {
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    void retrainChanged()
      .catch((err) =>
        console.error("[kb-inspector] learned rerankers not trained again this time:", err instanceof Error ? err.message : err),
      )
      .finally(() => (busy = false));
  }, lookMs);
  timer.unref();
  return () => clearInterval(timer);
}
