"use server";

import { revalidatePath } from "next/cache";
import { requireRole } from "@/lib/auth";
import { generatePairs, type GenerateReport } from "@/lib/evaluation/generate";
import { acceptProposals, rejectProposal } from "@/lib/evaluation/generate/review";
import { editPair } from "@/lib/evaluation/labeled-pairs";
import { generateSchema } from "@/lib/validations/generate";
import { pairUpdateSchema } from "@/lib/validations/pair";
import { plural } from "@/lib/format/plural";
import { formList, formText, toFormState, type FormState } from "./form-state";

export interface GenerateState extends FormState<{ scope: string; documents: string[]; per_document: string }> {
  report?: GenerateReport;
}
export type ProposalState = FormState<{ query: string; expected: string }>;

const revalidate = (agentId: number) => revalidatePath(`/agents/${agentId}/eval`, "layout");

/** The page's "Generate questions": all documents or the ones ticked, n questions each, stored as proposals. */
export async function generateAction(agentId: number, _prev: GenerateState, form: FormData): Promise<GenerateState> {
  await requireRole("editor");
  const values = { scope: formText(form, "scope"), documents: formList(form, "documents"), per_document: formText(form, "per_document") };
  const failed = { message: "No questions were generated.", values };
  const parsed = generateSchema.safeParse({
    documents: values.scope === "all" ? "all" : values.documents.map(Number),
    per_document: values.per_document === "" ? undefined : Number(values.per_document),
  });
  if (!parsed.success) return toFormState(parsed.error, failed);
  let report: GenerateReport;
  try {
    report = await generatePairs(agentId, parsed.data);
  } catch (err) {
    return toFormState(err, failed);
  }
  revalidate(agentId);
  const by = report.generator === "offline" ? "from the documents' headings, questions and first sentences" : `by ${report.generator}`;
  const skipped = report.skipped ? `; ${plural(report.skipped, "question")} existed already` : "";
  return { ok: true, report, values, message: `Proposed ${plural(report.proposed, "question")} ${by}${skipped}. Review them below.` };
}

/** Accepts one proposal with the query and document as the reviewer left them. */
export async function acceptProposalAction(agentId: number, pairId: number, _prev: ProposalState, form: FormData): Promise<ProposalState> {
  await requireRole("editor");
  const values = { query: formText(form, "query"), expected: formText(form, "expected") };
  const failed = { message: "The question was not accepted.", fields: { conflict: "query", unknown_document: "expected" }, values };
  const parsed = pairUpdateSchema.safeParse({ ...values, status: "accepted" });
  if (!parsed.success) return toFormState(parsed.error, failed);
  try {
    editPair(agentId, pairId, parsed.data);
  } catch (err) {
    return toFormState(err, failed);
  }
  revalidate(agentId);
  return { ok: true, message: `Accepted "${parsed.data.query}".` };
}

/** Accepts the proposals listed on the page (not ones proposed since it was loaded). */
export async function acceptAllAction(agentId: number, _prev: FormState, form: FormData): Promise<FormState> {
  await requireRole("editor");
  const ids = formList(form, "ids").map(Number).filter(Number.isSafeInteger);
  const n = acceptProposals(agentId, ids);
  revalidate(agentId);
  return { ok: true, message: `Accepted ${plural(n, "question")}.` };
}

export async function rejectProposalAction(agentId: number, pairId: number): Promise<FormState> {
  await requireRole("editor");
  try {
    rejectProposal(agentId, pairId);
  } catch (err) {
    return toFormState(err);
  }
  revalidate(agentId);
  return { ok: true };
}
