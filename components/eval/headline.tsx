import type { EvalRun } from "@/lib/db/eval-runs";
import { plural } from "@/lib/format/plural";
import { pct } from "./line-chart";
import { KPicker } from "./k-picker";
import { RunSettings } from "./run-settings";

function Figure({ label, value, detail }: { label: string; value: string; detail: string }) {
  return (
    <div className="rounded border border-slate-200 bg-white p-4">
      <p className="text-sm text-slate-600">{label}</p>
      <p className="mt-1 text-3xl font-semibold tabular-nums">{value}</p>
      <p className="mt-1 text-xs text-slate-500">{detail}</p>
    </div>
  );
}

/** How many unanswerable pairs the run's cut left without results. */
function Refusals({ run, refused }: { run: EvalRun; refused: number }) {
  const pairs = plural(run.n_unanswerable, "unanswerable pair", "unanswerable pairs");
  return (
    <p role="note" className="rounded border border-slate-200 bg-white px-3 py-2 text-sm text-slate-700">
      {run.max_distance === null
        ? `${pairs}: no cut was set, so none was refused.`
        : `${pairs}: ${refused} refused by the cut ${run.max_distance}.`}{" "}
      {run.n_unanswerable === 1 ? "It has no expected document, so it is" : "They have no expected document, so they are"} left out of
      recall and MRR; the no-match cut is calibrated on {run.n_unanswerable === 1 ? "it" : "them"} below.
    </p>
  );
}

/** Recall@k, MRR and pair count of one run, at the k the user picked; `refused`: unanswerable pairs the run's cut refused. */
export function Headline({
  run,
  k,
  hits,
  refused,
  currentPairs,
}: {
  run: EvalRun;
  k: number;
  hits: number;
  refused: number;
  currentPairs: number;
}) {
  const recall = run.recall_at_k?.[String(k)] ?? null;
  const scored = run.n_pairs - run.n_missing - run.n_unanswerable;
  return (
    <section aria-labelledby="headline-heading" className="space-y-3">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h2 id="headline-heading" className="text-lg font-semibold">
            Run #{run.id}
          </h2>
          <RunSettings run={run} />
        </div>
        <KPicker k={k} />
      </div>
      <div className="grid gap-4 sm:grid-cols-3">
        <Figure
          label={`Recall@${k}`}
          value={recall === null ? "n/a" : pct(recall)}
          detail={`${hits} of ${scored} pairs have their expected document ${k === 1 ? "as the first result" : `in the top ${k} results`}.`}
        />
        <Figure
          label="MRR"
          value={run.mrr === null ? "n/a" : run.mrr.toFixed(3)}
          detail="Mean of 1 / rank of the expected document (0 when not found); 1 means always first."
        />
        <Figure
          label="Pairs"
          value={String(run.n_pairs)}
          detail={
            currentPairs !== run.n_pairs
              ? `The agent has ${currentPairs} ${run.pair_source ? `${run.pair_source} ` : ""}pairs now; run again to include changes.`
              : run.pair_source
                ? `Every accepted pair from the source “${run.pair_source}”.`
                : "Every labeled pair of this agent."
          }
        />
      </div>
      {run.n_missing > 0 && (
        <p role="note" className="rounded border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900">
          {run.n_missing} {run.n_missing === 1 ? "pair expects a document that is" : "pairs expect documents that are"} no longer indexed.{" "}
          {run.n_missing === 1 ? "It is" : "They are"} marked “Not indexed” below and left out of recall and MRR, which are computed over
          the {scored} other pairs.
        </p>
      )}
      {run.n_unanswerable > 0 && <Refusals run={run} refused={refused} />}
    </section>
  );
}
