"use client";

import { useActionState } from "react";
import { applyCutAction, type ApplyCutState } from "@/lib/actions/cut";
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

function ApplyCut({ agentId, cut, current }: { agentId: number; cut: number; current: number | null }) {
  const [state, action] = useActionState<ApplyCutState, FormData>(applyCutAction.bind(null, agentId, cut), {});
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
}

/** The cut this run's labeled pairs recommend, its figures beside the current cut's, and a button to apply it. */
export function CutCalibration({ agentId, calibration: c, canEdit, otherModel }: Props) {
  return (
    <section aria-labelledby="cut-calibration-heading" className="space-y-3 rounded border border-slate-200 bg-white p-4">
      <h2 id="cut-calibration-heading" className="font-semibold">
        No-match cut
      </h2>
      <p className="max-w-3xl text-sm text-slate-600">
        A cut drops results farther than a distance, so a question the knowledge base does not answer gets nothing. This run&apos;s{" "}
        {plural(c.answerable, "answerable pair")} and {plural(c.unanswerable, "unanswerable pair")} show, for each cut, what it keeps and
        what it refuses at k = {c.k}.
      </p>
      {c.reason || !c.recommended ? (
        <p role="status" className="rounded border border-slate-200 bg-slate-50 p-2 text-sm text-slate-700">
          {c.reason ?? "No cut can be recommended from this run."}
        </p>
      ) : (
        <>
          <DistanceNote />
          <CutChart k={c.k} points={c.points} recommended={c.recommended} current={c.current} />
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
          ) : otherModel ? (
            <p className="text-sm text-amber-900">
              This run embedded with {otherModel}, whose distances do not compare with the model the app uses now; run an evaluation again
              to calibrate the cut.
            </p>
          ) : canEdit ? (
            <ApplyCut agentId={agentId} cut={c.recommended.cut} current={c.current.cut} />
          ) : (
            <p className="text-sm text-slate-600">An editor can apply the cut {cutText(c.recommended.cut)}.</p>
          )}
          <p className="max-w-3xl text-sm text-slate-600">
            Answered counts the answerable pairs whose expected document is in the top {c.k} and not past the cut; refused counts the
            unanswerable pairs whose closest chunk is past the cut; the recommended cut maximises their mean, the balanced accuracy.
          </p>
        </>
      )}
    </section>
  );
}
