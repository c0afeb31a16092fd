"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useActionState, useEffect, useRef } from "react";
import { useFormStatus } from "react-dom";
import { startEvalAction, type StartEvalState } from "@/lib/actions/evals";
import { apiFetch } from "@/lib/http/client-fetch";
import { queryKeys } from "@/lib/http/query-keys";
import type { runView } from "@/lib/evaluation/views";

/** What GET /api/agents/:id/evals/:runId answers. */
type RunView = ReturnType<typeof runView>;

function RunButton({ busy, disabled }: { busy: boolean; disabled: boolean }) {
  const { pending } = useFormStatus();
  return (
    <button
      type="submit"
      disabled={disabled || busy || pending}
      className="rounded bg-blue-700 px-4 py-2 text-sm font-medium text-white hover:bg-blue-800 disabled:opacity-60"
    >
      {pending ? "Starting…" : busy ? "Evaluating…" : "Run evaluation"}
    </button>
  );
}

/**
 * Starts a run in the background and follows it by polling, so the page can be left
 * and reopened: a run still going when the page loads is picked up from `runningId`.
 */
export function RunLauncher({ agentId, pairCount, chunkCount, defaultK, runningId }: { agentId: number; pairCount: number; chunkCount: number; defaultK: number; runningId?: number }) {
  const [state, action] = useActionState<StartEvalState, FormData>(startEvalAction.bind(null, agentId), {});
  const runId = state.runId ?? runningId ?? null;
  const router = useRouter();
  const queryClient = useQueryClient();
  const run = useQuery({
    queryKey: queryKeys.evalRun(agentId, runId ?? 0),
    queryFn: () => apiFetch<RunView>(`/api/agents/${agentId}/evals/${runId}`),
    enabled: runId !== null,
    staleTime: 0,
    refetchInterval: (q) => (!q.state.data || q.state.data.status === "running" ? 700 : false),
  });
  const shown = useRef<number | null>(null);
  useEffect(() => {
    const data = run.data;
    if (data?.status !== "done" || shown.current === data.run_id) return;
    shown.current = data.run_id;
    queryClient.invalidateQueries({ queryKey: queryKeys.evals(agentId) });
    router.replace(`/agents/${agentId}/eval?run=${data.run_id}&k=${data.k}`, { scroll: false });
  }, [run.data, agentId, router, queryClient]);

  const data = run.data?.run_id === runId ? run.data : undefined;
  const busy = runId !== null && (!data || data.status === "running");
  return (
    <section aria-labelledby="run-heading" className="space-y-3 rounded border border-slate-200 bg-white p-4">
      <h2 id="run-heading" className="font-semibold">
        Run an evaluation
      </h2>
      <p className="text-sm text-slate-600">
        Every labeled pair&apos;s query is searched exactly like in the inspector, and the expected document&apos;s best chunk is ranked among all{" "}
        {chunkCount} chunks of this agent. Recall is computed for every k from 1 to 20; the k you pick is the one each pair is judged hit or miss at,
        and any other k can be viewed afterwards. You can leave this page while it runs.
      </p>
      <form action={action} className="flex flex-wrap items-end gap-4" aria-describedby="run-status">
        <div className="flex flex-col gap-1">
          <label htmlFor="run-k" className="text-sm font-medium">
            k (hit when ranked at most k)
          </label>
          <input
            id="run-k"
            name="k"
            type="number"
            min={1}
            max={20}
            required
            defaultValue={state.values?.k ?? defaultK}
            aria-invalid={state.errors?.k ? true : undefined}
            aria-describedby="run-status"
            className="w-24 rounded border border-slate-300 px-2 py-1.5 text-sm"
          />
        </div>
        <RunButton busy={busy} disabled={pairCount === 0} />
        {pairCount === 0 && <p className="text-sm text-slate-600">Add labeled pairs first.</p>}
      </form>
      <div id="run-status" aria-live="polite" className="text-sm">
        {state.message && <p className="text-red-700">{state.errors?.k?.[0] ?? state.message}</p>}
        {runId !== null && busy && (
          <div className="space-y-1">
            <p>
              Evaluating run #{runId}: {data?.done_pairs ?? 0} of {data?.n_pairs ?? "…"} pairs ranked.
            </p>
            <progress
              className="h-2 w-full max-w-md accent-blue-700"
              aria-label="Evaluation progress"
              max={data?.n_pairs ?? 1}
              value={data?.done_pairs ?? 0}
            />
          </div>
        )}
        {data?.status === "failed" && <p className="text-red-700">Run #{data.run_id} failed: {data.error}</p>}
        {data?.status === "done" && <p className="text-green-800">Run #{data.run_id} finished.</p>}
        {run.error && <p className="text-red-700">Could not read the run&apos;s progress: {run.error.message}</p>}
      </div>
    </section>
  );
}
