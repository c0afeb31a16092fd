"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { AuditReport, RepairReport } from "@/lib/index-upkeep/audit";
import { apiFetch, postJson } from "@/lib/client/fetch";
import { auditSummary, plural, repairSummary } from "@/lib/index-upkeep/audit-summary";
import { queryKeys } from "@/lib/client/query-keys";
import { AuditSections, type AgentNames } from "./audit-sections";

const button = "rounded px-4 py-2 text-sm font-medium disabled:opacity-60";
const primary = `${button} bg-blue-700 text-white hover:bg-blue-800`;
const secondary = `${button} border border-slate-300 bg-white text-slate-800 hover:bg-slate-50`;

/** What a repair would do, going by the audit on screen (the repair audits again before acting). */
function repairPlan(r: AuditReport): string[] {
  const orphanVectors = r.orphan_vectors.reduce((sum, g) => sum + g.vectors, 0);
  const incomplete = new Set([...r.missing_vectors, ...r.count_mismatches].map((d) => d.document_id)).size;
  return [
    orphanVectors > 0 && `remove ${plural(orphanVectors, "orphan vector")}`,
    incomplete > 0 && `re-index ${plural(incomplete, "incomplete document")} from the stored text`,
    (r.unreachable_count ?? 0) > 0 && `re-add ${plural(r.unreachable_count ?? 0, "unreachable chunk")} to the index`,
    r.stuck_documents.length > 0 && `mark ${plural(r.stuck_documents.length, "stuck document")} failed and remove their vectors`,
    r.awaiting_cleanup.length > 0 && `retry ${plural(r.awaiting_cleanup.length, "queued removal")} now`,
  ].filter((p): p is string => Boolean(p));
}

/** Runs the audit when the page opens, shows what it found, and repairs on request. */
export function AuditPanel({ agents, canRepair }: { agents: AgentNames; canRepair: boolean }) {
  const queryClient = useQueryClient();
  // Always a fresh audit when the page opens: a cached one may describe an index that has since changed.
  // Querying every chunk with its own vector is slow on a large index (docs/performance.md, 'HNSW settings'): on request only.
  const [reachability, setReachability] = useState(false);
  const suffix = reachability ? "?reachability=1" : "";
  const audit = useQuery({
    queryKey: [...queryKeys.audit, reachability],
    queryFn: () => apiFetch<AuditReport>(`/api/audit${suffix}`),
    staleTime: 0,
    retry: false,
  });
  const [confirming, setConfirming] = useState(false);
  const repair = useMutation({
    mutationFn: () => postJson<RepairReport>(`/api/audit/repair${suffix}`, {}),
    onSuccess: (result) => {
      queryClient.setQueryData([...queryKeys.audit, reachability], result.after);
      // Documents may have been re-indexed under new ids or marked failed.
      queryClient.invalidateQueries({ queryKey: queryKeys.agents });
    },
  });

  const report = audit.data;
  const busy = audit.isFetching || repair.isPending;
  const plan = report ? repairPlan(report) : [];
  const failedReindex = repair.data?.reindexed.filter((d) => d.outcome !== "indexed" && d.outcome !== "replaced") ?? [];

  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-center gap-3">
        <button
          type="button"
          className={secondary}
          disabled={busy}
          aria-describedby="audit-status"
          onClick={() => {
            repair.reset();
            setConfirming(false);
            audit.refetch();
          }}
        >
          {audit.isFetching ? "Auditing…" : "Re-run audit"}
        </button>
        <button
          type="button"
          className={primary}
          disabled={busy || confirming || !canRepair}
          aria-describedby="audit-status"
          onClick={() => setConfirming(true)}
        >
          {repair.isPending ? "Repairing…" : "Repair…"}
        </button>
        <label className="flex items-center gap-2 text-sm">
          <input
            type="checkbox"
            checked={reachability}
            disabled={busy}
            onChange={(e) => {
              repair.reset();
              setConfirming(false);
              setReachability(e.target.checked);
            }}
          />
          Also query every chunk with its own vector (finds chunks the index cannot return; slow: about 6 s at 3,000 chunks, 45 s at 10,000)
        </label>
        {!canRepair && <p className="text-sm text-slate-600">Repair needs the editor role.</p>}
      </div>

      {confirming && (
        <div
          role="group"
          aria-labelledby="repair-confirm-heading"
          className="space-y-3 rounded border border-amber-300 bg-amber-50 p-4 text-sm"
        >
          <h2 id="repair-confirm-heading" className="font-semibold text-amber-900">
            Repair the index?
          </h2>
          {plan.length > 0 ? (
            <p className="text-amber-900">
              Going by the audit above, repair will {plan.join("; ")}. Searches keep working meanwhile; re-indexed documents get new ids.
            </p>
          ) : (
            <p className="text-amber-900">
              The audit above found nothing to repair; repair will check again and retry any queued removals.
            </p>
          )}
          <div className="flex gap-3">
            <button
              type="button"
              className={primary}
              autoFocus
              onClick={() => {
                setConfirming(false);
                repair.mutate();
              }}
            >
              Confirm repair
            </button>
            <button type="button" className={secondary} onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </div>
        </div>
      )}

      <div id="audit-status" role="status" aria-live="polite" className="space-y-2 text-sm">
        {repair.isPending && (
          <p>Repairing: removing orphan vectors, re-indexing incomplete documents, re-adding unreachable chunks, then auditing again…</p>
        )}
        {repair.error && <p className="text-red-700">Repair failed: {repair.error.message}</p>}
        {repair.data && (
          <div className="rounded border border-slate-200 bg-white p-3">
            <p className="font-medium">{repairSummary(repair.data)}</p>
            {(repair.data.readded_chunks ?? 0) > 0 && (
              <p className={repair.data.still_unreachable ? "mt-1 text-red-700" : "mt-1"}>
                Re-added {plural(repair.data.readded_chunks ?? 0, "unreachable chunk")}:{" "}
                {(repair.data.repaired_chunks ?? 0).toLocaleString("en")} can be found again,{" "}
                {(repair.data.still_unreachable ?? 0).toLocaleString("en")} still cannot.
              </p>
            )}
            {failedReindex.length > 0 && (
              <ul className="mt-1 list-disc pl-5 text-red-700">
                {failedReindex.map((d) => (
                  <li key={d.document_id}>
                    Document {d.document_id} was not re-indexed: {d.message}
                  </li>
                ))}
              </ul>
            )}
          </div>
        )}
        {audit.isFetching && !repair.isPending && (
          <p>
            Auditing the index… it reads every vector in Chroma and searches with each chunk’s own vector, so a large index can take
            minutes.
          </p>
        )}
        {audit.error && !audit.isFetching && <p className="text-red-700">Could not run the audit: {audit.error.message}</p>}
        {report && !audit.error && !audit.isFetching && (
          <p className={report.ok ? "text-green-800" : "text-amber-900"}>
            <span className="font-medium">{auditSummary(report)}</span>{" "}
            <span className="text-slate-500">Audited at {new Date(audit.dataUpdatedAt).toLocaleTimeString("en-GB")}.</span>
          </p>
        )}
      </div>

      {report && !audit.error && (
        <div aria-busy={busy} className={busy ? "opacity-60" : undefined}>
          <AuditSections report={report} agents={agents} />
        </div>
      )}
    </div>
  );
}
