"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useActionState, useEffect, useRef } from "react";
import { useFormStatus } from "react-dom";
import { startEvalAction, type StartEvalState } from "@/lib/actions/evals";
import { apiFetch } from "@/lib/client/fetch";
import { queryKeys } from "@/lib/client/query-keys";
import { plural } from "@/lib/format/plural";
import type { RetrievalMode } from "@/lib/validations/agent";
import { PAIR_SOURCES, type PairSource } from "@/lib/validations/pair";
import { CHAIN_TEXT, chainOf, stepText, type ChainKind, type RunView } from "./run-chain";

/** How the "Pairs" select names each source. */
export const SOURCE_NAMES: Record<PairSource, string> = {
  manual: "typed in (manual)",
  import: "imported (import)",
  log: "from the agent's questions (log)",
  generated: "generated (accepted)",
};

const BUTTON = "rounded px-4 py-2 text-sm font-medium disabled:opacity-60";

const OUTLINED = `${BUTTON} border border-blue-700 text-blue-800 hover:bg-blue-50`;

/** `reranker`: the agent's reranker, when it has one: the comparison with and without it is offered then. */
function LaunchButtons({ busy, disabled, reranker }: { busy: boolean; disabled: boolean; reranker: string | null }) {
  const { pending, data } = useFormStatus();
  const intent = data?.get("intent");
  const off = disabled || busy || pending;
  return (
    <>
      <button type="submit" name="intent" value="run" disabled={off} className={`${BUTTON} bg-blue-700 text-white hover:bg-blue-800`}>
        {pending && intent === "run" ? "Starting…" : busy ? "Evaluating…" : "Run evaluation"}
      </button>
      <button type="submit" name="intent" value="compare" disabled={off} className={OUTLINED}>
        {pending && intent === "compare" ? "Starting…" : "Compare vector, keyword and hybrid"}
      </button>
      {reranker !== null && (
        <button type="submit" name="intent" value="compare-reranker" disabled={off} className={OUTLINED}>
          {pending && intent === "compare-reranker" ? "Starting…" : "Compare with and without the reranker"}
        </button>
      )}
    </>
  );
}

/**
 * Starts a run (or one per mode) in the background and follows it by polling, so the page can be left
 * and reopened: a run still going when the page loads is picked up from `runningId`.
 */
export function RunLauncher(props: {
  agentId: number;
  agentMode: RetrievalMode;
  /** The agent's reranker (null: none). */
  reranker: string | null;
  pairCount: number;
  chunkCount: number;
  defaultK: number;
  runningId?: number;
  /** Accepted pairs per source, shown beside each choice of the "Pairs" select when given. */
  sourceCounts?: Partial<Record<PairSource, number>>;
}) {
  const { agentId, agentMode, reranker, pairCount, chunkCount, defaultK, runningId, sourceCounts } = props;
  const [state, action] = useActionState<StartEvalState, FormData>(startEvalAction.bind(null, agentId), {});
  const kind: ChainKind | null = state.compare ? "modes" : state.compareReranker ? "reranker" : null;
  const firstId = kind !== null ? (state.runId ?? null) : null;
  const runId = firstId === null ? (state.runId ?? runningId ?? null) : null;
  const router = useRouter();
  const queryClient = useQueryClient();
  const run = useQuery({
    queryKey: queryKeys.evalRun(agentId, runId ?? 0),
    queryFn: () => apiFetch<RunView>(`/api/agents/${agentId}/evals/${runId}`),
    enabled: runId !== null,
    staleTime: 0,
    refetchInterval: (q) => (!q.state.data || q.state.data.status === "running" ? 700 : false),
  });
  const list = useQuery({
    queryKey: queryKeys.evals(agentId),
    queryFn: () => apiFetch<{ runs: RunView[] }>(`/api/agents/${agentId}/evals`),
    enabled: firstId !== null,
    staleTime: 0,
    refetchInterval: (q) => (firstId !== null && kind !== null && !chainOf(kind, q.state.data?.runs, firstId).ended ? 700 : false),
  });
  const chain = firstId === null || kind === null ? null : { ...chainOf(kind, list.data?.runs, firstId), text: CHAIN_TEXT[kind] };

  const shown = useRef<number | null>(null);
  useEffect(() => {
    const data = run.data;
    if (data?.status !== "done" || shown.current === data.run_id) return;
    shown.current = data.run_id;
    queryClient.invalidateQueries({ queryKey: queryKeys.evals(agentId) });
    router.replace(`/agents/${agentId}/eval?run=${data.run_id}&k=${data.k}`, { scroll: false });
  }, [run.data, agentId, router, queryClient]);

  // Each finished run of a comparison refreshes the comparison below; the last one also opens its run.
  const seen = useRef({ firstId: null as number | null, done: 0 });
  const doneRuns = chain?.steps.flatMap((s) => (s.run?.status === "done" ? [s.run] : [])) ?? [];
  const [doneCount, last, complete] = [doneRuns.length, doneRuns.at(-1), chain?.complete === true];
  useEffect(() => {
    if (seen.current.firstId !== firstId) seen.current = { firstId, done: 0 };
    if (!last || doneCount <= seen.current.done) return;
    seen.current.done = doneCount;
    if (complete) router.replace(`/agents/${agentId}/eval?run=${last.run_id}&k=${last.k}`, { scroll: false });
    else router.refresh();
  }, [firstId, doneCount, last, complete, agentId, router]);

  const data = run.data?.run_id === runId ? run.data : undefined;
  const busy = (runId !== null && (!data || data.status === "running")) || (chain !== null && !chain.ended);
  const total = chain?.steps.reduce((n, s) => n + (s.run?.n_pairs ?? pairCount), 0) ?? 0;
  return (
    <section aria-labelledby="run-heading" className="space-y-3 rounded border border-slate-200 bg-white p-4">
      <h2 id="run-heading" className="font-semibold">
        Run an evaluation
      </h2>
      <p className="text-sm text-slate-600">
        Every labeled pair&apos;s query is searched exactly like in the inspector, ranked by {agentMode} (the agent&apos;s mode), and the
        expected document&apos;s best chunk is ranked among all {plural(chunkCount, "chunk")} of this agent. Recall is computed for every k
        from 1 to 20; the k you pick is the one each pair is judged hit or miss at, and any other k can be viewed afterwards. Comparing runs
        the pairs once per mode, one run after another
        {reranker !== null && `; comparing with and without the reranker (${reranker}) runs them twice in the agent's mode`}.
        &ldquo;Pairs&rdquo; picks which accepted pairs are scored: the agent&apos;s real questions (log) and generated ones give separate
        figures; proposed questions never count. You can leave this page while it runs.
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
        <div className="flex flex-col gap-1">
          <label htmlFor="run-source" className="text-sm font-medium">
            Pairs
          </label>
          <select
            // A select takes its defaultValue only when it mounts: the key remounts it for each value submitted.
            key={state.values?.source ?? ""}
            id="run-source"
            name="source"
            defaultValue={state.values?.source ?? ""}
            aria-invalid={state.errors?.source ? true : undefined}
            aria-describedby="run-status"
            className="rounded border border-slate-300 px-2 py-1.5 text-sm"
          >
            <option value="">all accepted pairs</option>
            {PAIR_SOURCES.map((s) => (
              <option key={s} value={s}>
                {SOURCE_NAMES[s]}
                {sourceCounts ? ` · ${sourceCounts[s] ?? 0}` : ""}
              </option>
            ))}
          </select>
        </div>
        <LaunchButtons busy={busy} disabled={pairCount === 0} reranker={reranker} />
        {pairCount === 0 && <p className="text-sm text-slate-600">Add labeled pairs first.</p>}
      </form>
      <div id="run-status" aria-live="polite" className="text-sm">
        {state.message && <p className="text-red-700">{state.errors?.k?.[0] ?? state.errors?.source?.[0] ?? state.message}</p>}
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
        {data?.status === "failed" && (
          <p className="text-red-700">
            Run #{data.run_id} failed: {data.error}
          </p>
        )}
        {data?.status === "done" && <p className="text-green-800">Run #{data.run_id} finished.</p>}
        {run.error && <p className="text-red-700">Could not read the run&apos;s progress: {run.error.message}</p>}
        {chain && !chain.ended && (
          <div className="space-y-1">
            <p>
              {chain.text.running}: {chain.steps.map((s) => stepText(s.name, s.run)).join(" · ")}.
            </p>
            <progress
              className="h-2 w-full max-w-md accent-blue-700"
              aria-label="Comparison progress"
              max={total || 1}
              value={chain.steps.reduce((n, s) => n + (s.run?.done_pairs ?? 0), 0)}
            />
          </div>
        )}
        {chain?.complete && (
          <p className="text-green-800">
            {chain.text.complete}: runs {chain.steps.map((s) => `#${s.run!.run_id}`).join(", ")}.
          </p>
        )}
        {chain?.failed && (
          <p className="text-red-700">
            Run #{chain.failed.run!.run_id} ({chain.failed.name}) failed, so the comparison stopped: {chain.failed.run!.error}
          </p>
        )}
        {chain?.stopped && (
          <p className="text-red-700">The comparison stopped before every run of it had finished; start it again to finish it.</p>
        )}
        {list.error && <p className="text-red-700">Could not read the comparison&apos;s progress: {list.error.message}</p>}
      </div>
    </section>
  );
}
