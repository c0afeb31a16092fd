"use server";

import { revalidatePath } from "next/cache";
import { requireRole } from "@/lib/auth";
import { replayQuestions, type ReplayedQuestion, type ReplaySummary } from "@/lib/questions/replay";
import { triageQuestion } from "@/lib/questions/triage";
import { replaySchema, triageSchema } from "@/lib/validations/questions";
import { isVectorStoreUnavailable, vectorStoreUnavailable } from "@/lib/core/errors";
import { formText, toFormState, type FormState } from "./form-state";

export type TriageState = FormState<{ expected: string }>;

const DONE: Record<string, (expected: string) => string> = {
  label: (expected) => `labeled with ${expected}; it is a labeled pair on the Recall tab now.`,
  unanswerable: () => "marked unanswerable; it is an unanswerable pair on the Recall tab now.",
  gap: () => "marked as a gap; it is listed under Gaps.",
  ignore: () => "ignored.",
  reopen: () => "reopened; a pair made from it stays on the pairs page.",
};

/** One click of triage on a question of the Questions tab: label, unanswerable, gap, ignore or reopen. */
export async function triageQuestionAction(agentId: number, groupId: number, _prev: TriageState, form: FormData): Promise<TriageState> {
  await requireRole("editor");
  const action = formText(form, "action");
  const values = { expected: formText(form, "expected") };
  const failed = { message: "Nothing was changed.", fields: { unknown_document: "expected" }, values };
  // Without a document a label has nothing to name: said beside the select, before the schema's generic error.
  if (action === "label" && values.expected.trim() === "") {
    return {
      message: "Choose the document that answers it, then Label.",
      errors: { expected: ["Choose the document that answers it, then Label."] },
      values,
    };
  }
  const parsed = triageSchema.safeParse(action === "label" ? { action, expected: values.expected } : { action });
  if (!parsed.success) return toFormState(parsed.error, failed);
  let expected = "";
  try {
    expected = triageQuestion(agentId, groupId, parsed.data).pair?.expected_filename ?? "";
  } catch (err) {
    return toFormState(err, failed);
  }
  // The Recall tab's pair count and the pairs page change with a label too.
  revalidatePath(`/agents/${agentId}`, "layout");
  return { ok: true, message: DONE[parsed.data.action](expected) };
}

export interface ReplayState extends FormState<{ limit: string }> {
  result?: { summary: ReplaySummary; changed: ReplayedQuestion[] };
}

/** A question whose results differ now in any way: its first document, what it returned, or how it ended. */
const changed = (q: ReplayedQuestion) => q.first_changed || q.gained.length > 0 || q.lost.length > 0 || q.then.ending !== q.now.ending;

/** "Replay": re-runs the agent's latest logged questions now and compares; reads only, so a viewer may. */
export async function replayQuestionsAction(agentId: number, _prev: ReplayState, form: FormData): Promise<ReplayState> {
  await requireRole("viewer");
  const values = { limit: formText(form, "limit") };
  const failed = { message: "Nothing was replayed.", values };
  const parsed = replaySchema.safeParse({ limit: values.limit.trim() === "" ? Number.NaN : Number(values.limit) });
  if (!parsed.success) return toFormState(parsed.error, failed);
  try {
    const draft = formText(form, "draft");
    const { summary, questions } = await replayQuestions(agentId, { limit: parsed.data.limit, draftId: draft ? Number(draft) : undefined });
    // Those whose first document changed come first: what the summary leads with.
    const rows = questions.filter(changed).sort((a, b) => Number(b.first_changed) - Number(a.first_changed));
    return { ok: true, values, result: { summary, changed: rows } };
  } catch (err) {
    // Chroma down is expected now and then: said in the form, not the error page.
    return toFormState(isVectorStoreUnavailable(err) ? vectorStoreUnavailable() : err, failed);
  }
}
