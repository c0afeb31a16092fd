import type { CrossValidation } from "@/lib/db/rerankers";
import { DataTable, type Column } from "@/components/ui/data-table";
import { pct } from "@/components/eval/line-chart";
import { plural } from "@/lib/format/plural";

interface Row {
  name: string;
  scores: CrossValidation["without"];
}

/** The recall columns: 1, the k the decision was made at, and 5, each once. */
const ksOf = (k: number) => [...new Set([1, k, 5])].sort((a, b) => a - b);

function columns(cv: CrossValidation): Column<Row>[] {
  return [
    { id: "ranking", header: "Ranking", className: "whitespace-nowrap font-medium", cell: (r) => r.name },
    ...ksOf(cv.k).map((k): Column<Row> => ({
      id: `recall-${k}`,
      header: k === cv.k ? `Recall@${k} (decides)` : `Recall@${k}`,
      className: "tabular-nums",
      cell: (r) => pct(r.scores.recall_at_k[String(k)] ?? 0),
    })),
    { id: "mrr", header: "MRR", className: "tabular-nums", cell: (r) => r.scores.mrr.toFixed(3) },
  ];
}

/** A learned model's cross-validation: the mode's own order against the model, on questions each fold's model never saw. */
export function CrossValidationTable({ cv, version }: { cv: CrossValidation; version: number }) {
  return (
    <DataTable
      caption={`Cross-validation of learned v${version} on ${plural(cv.questions, "held-out question")}, ${cv.folds} folds`}
      captionClassName="p-2 text-left text-xs text-slate-600"
      columns={columns(cv)}
      rows={[
        { name: "without reranker", scores: cv.without },
        { name: `with learned v${version}`, scores: cv.with },
      ]}
      rowKey={(r) => r.name}
    />
  );
}
