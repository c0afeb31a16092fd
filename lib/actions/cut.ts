"use server";

import { revalidatePath } from "next/cache";
import { requireRole } from "@/lib/auth";
import { getAgent, updateAgent } from "@/lib/db/agents";
import { rerankFor } from "@/lib/retrieval/rerank";
import { embedder } from "@/lib/embeddings/configured";
import { agentUpdateSchema } from "@/lib/validations/agent";
import { toFormState, type FormState } from "./form-state";

export type ApplyCutState = FormState;

const cutSchema = agentUpdateSchema.pick({ max_distance: true });

/** Sets the cut a calibration recommends as the agent's no-match cut, in the configured model's distances. */
export async function applyCutAction(agentId: number, cut: number, _prev: ApplyCutState, _form: FormData): Promise<ApplyCutState> {
  await requireRole("editor");
  const failed = { message: "The cut was not applied." };
  const parsed = cutSchema.safeParse({ max_distance: cut });
  if (!parsed.success) return toFormState(parsed.error, failed);
  const maxDistance = parsed.data.max_distance;
  // Applying sets a cut; clearing one is the Settings tab's job.
  if (maxDistance === null || maxDistance === undefined) return { message: "The cut was not applied: no cut value was given." };
  try {
    updateAgent(agentId, { cut: { maxDistance, model: embedder().model } });
  } catch (err) {
    return toFormState(err, failed);
  }
  revalidatePath(`/agents/${agentId}`, "layout");
  return {
    ok: true,
    message: `Applied: the agent's search now drops results farther than ${maxDistance}. Run an evaluation to see its effect.`,
  };
}

/**
 * Sets the cut a reranked run's calibration recommends as the agent's cut on its reranker's score,
 * kept with `version`, the reranker the run ranked with: refused when the agent ranks with another now.
 */
export async function applyRerankCutAction(
  agentId: number,
  cut: number,
  version: string,
  _prev: ApplyCutState,
  _form: FormData,
): Promise<ApplyCutState> {
  await requireRole("editor");
  const failed = { message: "The cut was not applied." };
  if (!Number.isFinite(cut)) return { message: "The cut was not applied: no cut value was given." };
  try {
    const serving = rerankFor(getAgent(agentId))?.reranker.version;
    if (serving !== version) {
      return {
        message:
          `The cut was not applied: it was calibrated for ${version}, and the agent ranks ` +
          `${serving ? `with ${serving}` : "without a reranker"} now. Run an evaluation again to calibrate it.`,
      };
    }
    updateAgent(agentId, { rerankCut: { cut, version } });
  } catch (err) {
    return toFormState(err, failed);
  }
  revalidatePath(`/agents/${agentId}`, "layout");
  return {
    ok: true,
    message: `Applied: the agent's search now drops results that ${version} scores below ${cut}. Run an evaluation to see its effect.`,
  };
}
