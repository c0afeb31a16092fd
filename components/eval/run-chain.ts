import type { runView } from "@/lib/evaluation/views";
import { RETRIEVAL_MODES } from "@/lib/validations/agent";

/** What GET /api/agents/:id/evals/:runId answers. */
export type RunView = ReturnType<typeof runView>;

/** The two comparisons a launch can start: one run per mode, or one without the reranker and one with it. */
export type ChainKind = "modes" | "reranker";

interface StepSpec {
  name: string;
  matches: (run: RunView) => boolean;
}

const STEPS: Record<ChainKind, StepSpec[]> = {
  modes: RETRIEVAL_MODES.map((mode) => ({ name: mode, matches: (r: RunView) => r.settings.retrieval_mode === mode })),
  reranker: [
    { name: "without the reranker", matches: (r) => r.settings.reranker === "none" },
    { name: "with it", matches: (r) => r.settings.reranker !== "none" },
  ],
};

/** How a chain is named while it runs, once it is complete, and beside a run of it that failed. */
export const CHAIN_TEXT: Record<ChainKind, { running: string; complete: string }> = {
  modes: { running: "Comparing modes", complete: "Compared vector, keyword and hybrid" },
  reranker: { running: "Comparing without and with the reranker", complete: "Compared without and with the reranker" },
};

/** The runs of a comparison started at `firstId`, one per step, and whether it has ended. */
export function chainOf(kind: ChainKind, runs: RunView[] | undefined, firstId: number) {
  const since = (runs ?? []).filter((r) => r.run_id >= firstId);
  const steps = STEPS[kind].map((s) => ({ name: s.name, run: since.find(s.matches) }));
  const failed = steps.find((s) => s.run?.status === "failed");
  const complete = steps.every((s) => s.run?.status === "done");
  // The next run starts in the same tick the previous one finishes, so "nothing running" means the chain ended.
  const stopped = runs !== undefined && !complete && !failed && !runs.some((r) => r.status === "running");
  return { steps, failed, complete, stopped, ended: complete || failed !== undefined || stopped };
}

export const stepText = (name: string, run?: RunView) =>
  !run ? `${name} waiting` : run.status === "running" ? `${name} ${run.done_pairs} of ${run.n_pairs} pairs` : `${name} ${run.status}`;
