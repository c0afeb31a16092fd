import type { EvalRun } from "@/lib/evaluation/runs";

export const when = (iso: string) => new Date(iso).toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short" });

export const chunkSettingsText = (run: EvalRun) =>
  run.chunk_settings.map((s) => `${s.chunk_size}/${s.chunk_overlap}${run.chunk_settings.length > 1 ? ` (${s.documents} docs)` : ""}`).join(", ") || "—";

/** The settings a run ran with, so a change in the figures can be traced to a change in the setup. */
export function RunSettings({ run }: { run: EvalRun }) {
  return (
    <p className="text-sm text-slate-600">
      {when(run.created_at)} · run at k = {run.k} · {run.embedding_model} · {run.document_count} documents, {run.chunk_count} chunks · chunk
      size/overlap {chunkSettingsText(run)}
    </p>
  );
}
