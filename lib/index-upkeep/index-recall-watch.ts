import "server-only";
import { listAgents } from "../db/agents";
import { readySignature } from "../db/documents";
import { latestIndexRecalls } from "../db/index-recall";
import { embedder } from "../embeddings/configured";
import { AppError } from "../core/errors";
import { searchPause } from "../vector-store/batched-add";
import { isVectorStoreUnavailable } from "../vector-store/client";
import { measureIndexRecall } from "../retrieval/index-recall";
import { rebuildState } from "./rebuild";

/** How often an agent is measured again when nothing about it changed. */
export const INDEX_RECALL_EVERY_MS = 60 * 60_000;
/** How often the monitor looks for agents due: a changed ready set is measured within this. */
export const INDEX_RECALL_LOOK_MS = 10 * 60_000;
/** How long a measurement waits for searches to pause before it goes anyway. */
const MAX_WAIT_MS = 30_000;
const PAUSE_STEP_MS = 250;

/**
 * Agents whose index recall is due: never measured, measured longer than `everyMs` ago, with
 * another model, before their ready set changed, or before the index was last rebuilt.
 */
export function agentsDue(everyMs = INDEX_RECALL_EVERY_MS, at = Date.now()): number[] {
  const model = embedder().model;
  const latest = new Map(latestIndexRecalls().map((r) => [r.agent_id, r]));
  const rebuild = rebuildState();
  const rebuiltAt = rebuild.last_error ? null : rebuild.last_finished_at;
  return listAgents()
    .filter((a) => {
      const r = latest.get(a.id);
      if (!r) return true;
      return (
        at - Date.parse(r.measured_at) >= everyMs ||
        r.model !== model ||
        r.ready_signature !== readySignature(a.id, model) ||
        (rebuiltAt !== null && r.measured_at < rebuiltAt)
      );
    })
    .map((a) => a.id);
}

/**
 * Measures the agents due, one at a time, each after searches pause (up to MAX_WAIT_MS): the
 * monitor replays real queries, and people searching come first. Returns how many were measured.
 */
export async function measureDueAgents(everyMs = INDEX_RECALL_EVERY_MS): Promise<number> {
  let measured = 0;
  for (const agentId of agentsDue(everyMs)) {
    // Measured against the new index once it is in place.
    if (rebuildState().state === "running") break;
    await searchPause(MAX_WAIT_MS, PAUSE_STEP_MS);
    try {
      await measureIndexRecall(agentId);
      measured++;
    } catch (err) {
      if (err instanceof AppError && err.code === "not_found") continue; // deleted meanwhile
      if (isVectorStoreUnavailable(err)) throw err; // the next look tries again
      console.error(`[kb-inspector] measuring the index recall of agent ${agentId} failed:`, err instanceof Error ? err.message : err);
    }
  }
  return measured;
}

/**
 * Starts the monitor: every `lookMs` it measures the agents due. Returns the stop. The monitor
 * measures the agents due for the life of the process, started once, by lib/runtime/services.ts.
 */
export function watchIndexRecall({ everyMs = INDEX_RECALL_EVERY_MS, lookMs = INDEX_RECALL_LOOK_MS } = {}): () => void {
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return; // a long pass is still going: no second one beside it
    busy = true;
    void measureDueAgents(everyMs)
      .catch((err) => console.error("[kb-inspector] index recall not measured this time:", err instanceof Error ? err.message : err))
      .finally(() => (busy = false));
  }, lookMs);
  timer.unref();
  return () => clearInterval(timer);
}
