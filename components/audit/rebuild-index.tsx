"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import type { Health } from "@/lib/index-upkeep/health";
import type { RebuildState } from "@/lib/index-upkeep/rebuild";
import { apiFetch, postJson } from "@/lib/client/fetch";
import { queryKeys } from "@/lib/client/query-keys";

const button = "rounded px-4 py-2 text-sm font-medium disabled:opacity-60";

/**
 * Rebuilds the vector index on request: every vector copied into a new collection that takes the
 * old one's place. The request answers at once (a large index takes minutes); progress and the
 * outcome come from /api/health, polled until that rebuild is over.
 */
export function RebuildIndex({ canRebuild }: { canRebuild: boolean }) {
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  // started_at of the rebuild this page asked for (or joined), while it is watched.
  const [watching, setWatching] = useState<string | null>(null);
  const rebuild = useMutation({
    mutationFn: () => postJson<{ rebuild: RebuildState }>("/api/audit/rebuild", {}),
    onSuccess: (r) => setWatching(r.rebuild.started_at),
  });
  const progress = useQuery({
    queryKey: ["rebuild-progress", watching],
    queryFn: () => apiFetch<Health>("/api/health").then((h) => h.index.rebuild),
    enabled: watching !== null,
    refetchInterval: (q) => (q.state.data?.state === "idle" ? false : 1_000),
  });
  const state = watching !== null ? progress.data : undefined;
  const finished = state !== undefined && state.state === "idle" && state.started_at === watching;
  useEffect(() => {
    if (finished) void queryClient.invalidateQueries({ queryKey: queryKeys.audit });
  }, [finished, queryClient]);
  const busy = rebuild.isPending || (watching !== null && !finished);
  const failed = rebuild.error?.message ?? (finished && state.last_error ? state.last_error : null);
  const done = finished && !state.last_error ? state : undefined;

  return (
    <section aria-labelledby="rebuild-heading" className="space-y-3 rounded border border-slate-200 bg-white p-4">
      <h2 id="rebuild-heading" className="font-semibold">
        Rebuild the vector index
      </h2>
      <p className="text-sm text-slate-600">
        Copies every vector into a new index built from scratch, which then takes the old one&apos;s place. Chroma&apos;s index keeps every
        vector ever removed, and after Chroma was killed it may lead searches past some chunks; a rebuild starts clean. The app does this by
        itself when the check after a crash finds chunks the index lost. Searches, uploads and removals go on meanwhile; see the performance
        guide for how long it takes on your corpus.
      </p>
      <div className="flex flex-wrap items-center gap-3">
        <button
          type="button"
          className={`${button} border border-slate-300 bg-white text-slate-800 hover:bg-slate-50`}
          disabled={!canRebuild || busy || confirming}
          onClick={() => {
            rebuild.reset();
            setWatching(null);
            setConfirming(true);
          }}
        >
          {busy ? "Rebuilding…" : "Rebuild index…"}
        </button>
        {!canRebuild && <p className="text-sm text-slate-600">Rebuilding needs the editor role.</p>}
      </div>
      {confirming && (
        <div role="group" aria-label="Confirm the rebuild" className="flex flex-wrap items-center gap-3 text-sm">
          <span>Rebuild the index now? Uploads wait until it is done.</span>
          <button
            type="button"
            autoFocus
            className={`${button} bg-blue-700 text-white hover:bg-blue-800`}
            onClick={() => {
              setConfirming(false);
              rebuild.mutate();
            }}
          >
            Confirm rebuild
          </button>
          <button
            type="button"
            className={`${button} border border-slate-300 bg-white text-slate-800`}
            onClick={() => setConfirming(false)}
          >
            Cancel
          </button>
        </div>
      )}
      {/* A live region but not a second role=status: the audit's status above is the page's one. */}
      <div aria-live="polite" data-testid="rebuild-status" className="text-sm">
        {busy && (
          <p>
            Rebuilding the index
            {state?.state === "running"
              ? `: ${state.copied.toLocaleString("en")} of ${state.total.toLocaleString("en")} vectors copied`
              : ""}
            …
          </p>
        )}
        {failed && <p className="text-red-700">The rebuild stopped: {failed} The old index is still in use.</p>}
        {done && (
          <p className="text-green-800">
            Rebuilt the index: {(done.last_vectors ?? 0).toLocaleString("en")} vectors copied in {done.last_seconds} s. The index check now
            queries every chunk with its own vector (progress in the banner).
          </p>
        )}
      </div>
    </section>
  );
}
