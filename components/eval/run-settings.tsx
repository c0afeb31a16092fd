import type { EvalRun } from "@/lib/db/eval-runs";
import { plural } from "@/lib/format/plural";

export const when = (iso: string) => new Date(iso).toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short" });

/** How the run's queries were weighted, when that tells two runs of one model apart. */
export const queryWeightingText = (run: EvalRun) =>
  run.query_weighting === "agent-idf-v1"
    ? "queries weighted by word rarity"
    : run.query_weighting
      ? `queries weighted (${run.query_weighting})`
      : run.embedding_model.startsWith("local-")
        ? "queries not weighted"
        : null;

const withWeighting = (run: EvalRun) => {
  const text = queryWeightingText(run);
  return text ? ` · ${text}` : "";
};

/** The reranker a run ranked with, by its version ("learned v3 (120 labels)", "mmr λ=0.7"), or "none". */
export const rerankerText = (run: Pick<EvalRun, "reranker" | "reranker_version">) =>
  run.reranker === "none" ? "none" : (run.reranker_version ?? run.reranker);

/** A run's ranking: its mode and its reranker, to tell the two runs of a comparison apart. */
export const rankingText = (run: Pick<EvalRun, "retrieval_mode" | "reranker" | "reranker_version">) =>
  `${run.retrieval_mode} · reranker ${rerankerText(run)}`;

export const chunkSettingsText = (run: EvalRun) =>
  run.chunk_settings
    .map(
      (s) =>
        `${s.chunk_size}/${s.chunk_overlap} ${s.chunk_strategy ?? "fixed"}${run.chunk_settings.length > 1 ? ` (${s.documents} docs)` : ""}`,
    )
    .join(", ") || "—";

/** The settings a run ran with, so a change in the figures can be traced to a change in the setup. */
export function RunSettings({ run }: { run: EvalRun }) {
  return (
    <p className="text-sm text-slate-600">
      {when(run.created_at)} · run at k = {run.k} · ranked by {run.retrieval_mode} · reranker {rerankerText(run)} · {run.embedding_model}
      {withWeighting(run)}
      {run.max_distance !== null && ` · no-match cut ${run.max_distance}`} · {plural(run.document_count, "document")},{" "}
      {plural(run.chunk_count, "chunk")} · chunk size/overlap/strategy {chunkSettingsText(run)}
    </p>
  );
}
