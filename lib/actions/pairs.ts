"use server";

import { revalidatePath } from "next/cache";
import { requireRole } from "@/lib/auth";
import { addPair, editPair, importPairs, type ImportReport } from "@/lib/evaluation/labeled-pairs";
import { parsePairFile } from "@/lib/evaluation/pair-files";
import { deletePair } from "@/lib/db/pairs";
import { importTooLarge, MAX_IMPORT_BYTES, MAX_IMPORT_ROWS, pairSchema } from "@/lib/validations/pair";
import { plural } from "@/lib/format/plural";
import { formText, toFormState, type FormState } from "./form-state";

export type PairFormState = FormState<{ query: string; expected: string; note: string; unanswerable: boolean }>;

export interface ImportState {
  message?: string;
  report?: ImportReport;
}

const submitted = (form: FormData) => {
  // An unanswerable pair has no expected document, whatever the select last held.
  const unanswerable = form.get("unanswerable") === "on";
  return {
    query: formText(form, "query"),
    expected: unanswerable ? "" : formText(form, "expected"),
    note: formText(form, "note"),
    unanswerable,
  };
};
const toPair = (v: ReturnType<typeof submitted>) => ({ query: v.query, expected: v.expected, note: v.note, answerable: !v.unanswerable });
// A pair that already exists is an error of its query; a document that is not indexed, of the expected field.
const fields = { conflict: "query", unknown_document: "expected" };

const revalidate = (agentId: number) => revalidatePath(`/agents/${agentId}/eval`, "layout");

export async function createPairAction(agentId: number, _prev: PairFormState, form: FormData): Promise<PairFormState> {
  await requireRole("editor");
  const values = submitted(form);
  const failed = { message: "The pair was not added.", fields, values };
  const parsed = pairSchema.safeParse(toPair(values));
  if (!parsed.success) return toFormState(parsed.error, failed);
  try {
    addPair(agentId, parsed.data);
  } catch (err) {
    return toFormState(err, failed);
  }
  revalidate(agentId);
  return { ok: true, message: `Added "${parsed.data.query}"${parsed.data.answerable ? "" : " as unanswerable"}.` };
}

export async function updatePairAction(agentId: number, pairId: number, _prev: PairFormState, form: FormData): Promise<PairFormState> {
  await requireRole("editor");
  const values = submitted(form);
  const failed = { message: "Nothing was saved.", fields, values };
  const parsed = pairSchema.safeParse(toPair(values));
  if (!parsed.success) return toFormState(parsed.error, failed);
  try {
    editPair(agentId, pairId, parsed.data);
  } catch (err) {
    return toFormState(err, failed);
  }
  revalidate(agentId);
  return { ok: true, message: "Saved." };
}

export async function deletePairAction(agentId: number, pairId: number): Promise<void> {
  await requireRole("editor");
  deletePair(agentId, pairId);
  revalidate(agentId);
}

export async function importPairsAction(agentId: number, _prev: ImportState, form: FormData): Promise<ImportState> {
  await requireRole("editor");
  const file = form.get("file");
  if (!(file instanceof File) || file.size === 0) return { message: "Choose a CSV or JSONL file to import." };
  if (file.size > MAX_IMPORT_BYTES) return { message: importTooLarge(file.size) };
  const rows = parsePairFile(await file.text(), file.name);
  if (rows.length > MAX_IMPORT_ROWS) return { message: `At most ${MAX_IMPORT_ROWS} pairs per import; this file has ${rows.length}.` };
  const report = importPairs(agentId, rows);
  revalidate(agentId);
  return { report, message: `${plural(report.accepted, "row")} accepted, ${plural(report.rejected.length, "row")} rejected.` };
}
