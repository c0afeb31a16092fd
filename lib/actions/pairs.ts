"use server";

import { revalidatePath } from "next/cache";
import { requireRole } from "@/lib/auth";
import { AppError } from "@/lib/http/errors";
import { addPair, editPair, importPairs, type ImportReport } from "@/lib/evaluation/labeled-pairs";
import { parsePairFile } from "@/lib/evaluation/pair-files";
import { deletePair } from "@/lib/db/pairs";
import { MAX_IMPORT_ROWS, pairSchema } from "@/lib/validations/pair";

export interface PairFormState {
  ok?: boolean;
  message?: string;
  errors?: Record<string, string[] | undefined>;
}

export interface ImportState {
  message?: string;
  report?: ImportReport;
}

const MAX_IMPORT_BYTES = 5 * 1024 * 1024;

const fields = (form: FormData) => ({ query: form.get("query") ?? "", expected: form.get("expected") ?? "", note: form.get("note") });

/** Expected failures become form errors; the field they belong to is named by the code. */
function failure(err: unknown): PairFormState {
  if (!(err instanceof AppError)) throw err;
  const field = err.code === "unknown_document" ? "expected" : "query";
  return { message: err.message, errors: { [field]: [err.message] } };
}

const revalidate = (agentId: number) => revalidatePath(`/agents/${agentId}/eval`, "layout");

export async function createPairAction(agentId: number, _prev: PairFormState, form: FormData): Promise<PairFormState> {
  await requireRole("editor");
  const parsed = pairSchema.safeParse(fields(form));
  if (!parsed.success) return { message: "The pair was not added.", errors: parsed.error.flatten().fieldErrors };
  try {
    addPair(agentId, parsed.data);
  } catch (err) {
    return failure(err);
  }
  revalidate(agentId);
  return { ok: true, message: `Added "${parsed.data.query}".` };
}

export async function updatePairAction(agentId: number, pairId: number, _prev: PairFormState, form: FormData): Promise<PairFormState> {
  await requireRole("editor");
  const parsed = pairSchema.safeParse(fields(form));
  if (!parsed.success) return { message: "Nothing was saved.", errors: parsed.error.flatten().fieldErrors };
  try {
    editPair(agentId, pairId, parsed.data);
  } catch (err) {
    return failure(err);
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
  if (file.size > MAX_IMPORT_BYTES) return { message: "The file is larger than 5 MB; split it into several imports." };
  const rows = parsePairFile(await file.text(), file.name);
  if (rows.length > MAX_IMPORT_ROWS) return { message: `At most ${MAX_IMPORT_ROWS} pairs per import; this file has ${rows.length}.` };
  const report = importPairs(agentId, rows);
  revalidate(agentId);
  const n = (count: number) => `${count} row${count === 1 ? "" : "s"}`;
  return { report, message: `${n(report.accepted)} accepted, ${n(report.rejected.length)} rejected.` };
}
