"use client";

import { useActionState } from "react";
import { applyCutAction, applyRerankCutAction, type ApplyCutState } from "@/lib/actions/cut";
import type { Calibration, CutPoint } from "@/lib/evaluation/calibrate";
import { DataTable, type Column } from "@/components/ui/data-table";
import { SubmitButton } from "@/components/ui/submit-button";
import { DistanceNote } from "@/components/ui/distance-note";
import { plural } from "@/lib/format/plural";
import { CutChart, cutText } from "./cut-chart";
import { pct } from "./line-chart";

interface Row {
  label: string;
  point: CutPoint;
}

const COLUMNS: Column<Row>[] = [
  { id: "cut", header: "Cut", className: "whitespace-nowrap font-medium", cell: (r) => r.label },
  { id: "answered", header: "Answered at k", className: "tabular-nums", cell: (r) => pct(r.point.answered) },
  { id: "refused", header: "Refused", className: "tabular-nums", cell: (r) => pct(r.point.refused) },
  { id: "balanced", header: "Balanced", className: "tabular-nums", cell: (r) => pct(r.point.balanced) },
];

function ApplyCut(props: { agentId: number; cut: number; current: number | null; rerankVersion: string | null }) {
  const { agentId, cut, current, rerankVersion } = props;
  const apply =
    rerankVersion === null ? applyCutAction.bind(null, agentId, cut) : applyRerankCutAction.bind(null, agentId, cut, rerankVersion);
  const [state, action] = useActionState<ApplyCutState, FormData>(apply, {});
  // Stays mounted once the cut is applied, so its message outlives the button it replaces.
  return (
    <form action={action} className="flex flex-wrap items-center gap-3" aria-describedby="apply-cut-status">
      {current === cut ? (
        <p className="text-sm">The agent&apos;s search already uses the cut {cut}.</p>
      ) : (
        <SubmitButton pendingText="Applying…">{`Apply cut ${cut}`}</SubmitButton>
      )}
      <p id="apply-cut-status" aria-live="polite" className={`text-sm ${state.ok ? "text-green-800" : "text-red-700"}`}>
        {state.message}
      </p>
    </form>
  );
}

interface Props {
  agentId: number;
  calibration: Calibration;
  canEdit: boolean;
  /** Set when the run embedded with another model than the app does now: its distances cannot set the cut. */
  otherModel: string | null;
  /**
   * For a run ranked with a reranker, the version it ranked with: the cut is then on the reranker's
   * score (higher is better), and `otherReranker` is set when the agent ranks with another now.
   */
  rerank?: { version: string; otherReranker: string | null };
}

const DISTANCE_AXIS = ["cut (cosine distance;", "results farther than it are dropped)"];
const SCORE_AXIS = ["cut (reranker score;", "results scored below it are dropped)"];

/** The cut this run's labeled pairs recommend, its figures beside the current cut's, and a button to apply it. */
export function CutCalibration({ agentId, calibration: c, canEdit, otherModel, rerank }: Props) {
  const stale = rerank ? rerank.otherReranker : otherModel;
  return (
    <section aria-labelledby="cut-calibration-heading" className="space-y-3 rounded border border-slate-200 bg-white p-4">
      <h2 id="cut-calibration-heading" className="font-semibold">
        No-match cut
      </h2>
      <p className="max-w-3xl text-sm text-slate-600">
        {rerank
          ? `This run was reranked by ${rerank.version}, so the cut is on its score: results it scores below the cut are dropped, so a question the knowledge base does not answer gets nothing. The cut is kept with that reranker version. This run's `
          : "A cut drops results farther than a distance, so a question the knowledge base does not answer gets nothing. This run's "}
        {plural(c.answerable, "answerable pair")} and {plural(c.unanswerable, "unanswerable pair")} show, for each cut, what it keeps and
        what it refuses at k = {c.k}.
      </p>
      {c.reason || !c.recommended ? (
        <p role="status" className="rounded border border-slate-200 bg-slate-50 p-2 text-sm text-slate-700">
          {c.reason ?? "No cut can be recommended from this run."}
        </p>
      ) : (
        <>
          {!rerank && <DistanceNote />}
          <CutChart k={c.k} points={c.points} recommended={c.recommended} current={c.current} axis={rerank ? SCORE_AXIS : DISTANCE_AXIS} />
          <div className="max-w-xl">
            <DataTable
              caption={`The recommended and the current cut at k = ${c.k}`}
              columns={COLUMNS}
              rows={[
                { label: `Recommended ${c.recommended.cut === null ? "(no cut)" : c.recommended.cut}`, point: c.recommended },
                { label: `Current ${c.current.cut === null ? "(none)" : c.current.cut}`, point: c.current },
              ]}
              rowKey={(r) => r.label}
            />
          </div>
          {c.recommended.cut === null ? (
            <p className="text-sm">No cut does best on these pairs, so there is nothing to apply.</p>
          ) : stale ? (
            <p className="text-sm text-amber-900">
              {rerank
                ? `This run was reranked by ${rerank.version}, whose scores do not compare with ${stale}'s, the agent's reranker now; run an evaluation again to calibrate the cut.`
                : `This run embedded with ${stale}, whose distances do not compare with the model the app uses now; run an evaluation again to calibrate the cut.`}
            </p>
          ) : canEdit ? (
            <ApplyCut agentId={agentId} cut={c.recommended.cut} current={c.current.cut} rerankVersion={rerank?.version ?? null} />
          ) : (
            <p className="text-sm text-slate-600">An editor can apply the cut {cutText(c.recommended.cut)}.</p>
          )}
          <p className="max-w-3xl text-sm text-slate-600">
            Answered counts the answerable pairs whose expected document is in the top {c.k} and not past the cut; refused counts the
            unanswerable pairs whose {rerank ? "first result" : "closest chunk"} is past the cut; the recommended cut maximises their mean,
            the balanced accuracy.
          </p>
        </>
      )}
    </section>
  );
}
