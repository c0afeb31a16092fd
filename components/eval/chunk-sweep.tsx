"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { DataTable, type Column } from "@/components/ui/data-table";
import { apiFetch, postJson } from "@/lib/client/fetch";
import { queryKeys } from "@/lib/client/query-keys";
import { CHUNK_STRATEGIES, STRATEGY_LABELS, type ChunkStrategy } from "@/lib/core/chunking";
import {
  MAX_SWEEP_SETTINGS,
  settingLabel,
  SWEEP_OVERLAPS,
  SWEEP_SIZES,
  type SweepRow,
  type SweepSetting,
  type SweepView,
} from "@/lib/core/sweep-types";
import { pct } from "./line-chart";
import { SweepChart } from "./sweep-chart";

type Row = SweepRow & { index: number };

const toggle = <T,>(list: readonly T[], v: T) => (list.includes(v) ? list.filter((x) => x !== v) : [...list, v]);
const percent = (done: number, total: number) => (total > 0 ? Math.round((done / total) * 100) : 0);
const busy = (v?: SweepView | null) => !!v && (v.status === "running" || v.apply?.status === "running");
const recallText = (row: SweepRow, k: number) => {
  const v = row.recall_at_k?.[String(k)];
  return v === null || v === undefined ? "n/a" : pct(v);
};
const APPLY_LOOK = "rounded border border-blue-300 px-2 py-1 text-xs text-blue-700 hover:bg-blue-50 disabled:opacity-50";
const STATUS_TEXT = { waiting: "Waiting", running: "Running", done: "Done", failed: "Failed" };

/** The latest sweep, or null when the agent never ran one. */
const fetchLatest = (agentId: number) => apiFetch<SweepView | null>(`/api/agents/${agentId}/sweeps/latest`);

function CheckboxGroup<T extends string | number>(props: {
  legend: string;
  options: readonly T[];
  checked: T[];
  onChange: (v: T[]) => void;
  label?: (v: T) => string;
}) {
  return (
    <fieldset className="space-y-1">
      <legend className="text-sm font-medium">{props.legend}</legend>
      {props.options.map((o) => (
        <label key={o} className="flex items-center gap-2 text-sm">
          <input type="checkbox" checked={props.checked.includes(o)} onChange={() => props.onChange(toggle(props.checked, o))} />
          {props.label ? props.label(o) : String(o)}
        </label>
      ))}
    </fieldset>
  );
}

function Progress({ label, text, done, total }: { label: string; text: string; done: number; total: number }) {
  const now = percent(done, total);
  return (
    <div className="space-y-1">
      <p>{text}</p>
      <div
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={now}
        className="h-2 w-full max-w-md rounded bg-slate-200"
      >
        <div className="h-2 rounded bg-blue-700" style={{ width: `${now}%` }} />
      </div>
    </div>
  );
}

function columns(view: SweepView, onApply: ((row: Row) => void) | null, applyDisabled: boolean): Column<Row>[] {
  const k = view.k;
  const recalls = view.rows.filter((r) => r.status === "done").map((r) => r.recall_at_k?.[String(k)] ?? null);
  const best = recalls.some((v) => v !== null) ? Math.max(...recalls.map((v) => v ?? 0)) : null;
  // The sweep's own k has its column already.
  const others = [1, 5, 10].filter((at) => at !== k);
  const showStatus = view.status === "running" || view.rows.some((r) => r.status === "failed");
  return [
    {
      id: "setting",
      header: "Setting",
      className: "whitespace-nowrap",
      cell: (r) => (
        <>
          {settingLabel(r)}{" "}
          {r.current && <span className="rounded bg-amber-100 px-1.5 py-0.5 text-xs font-medium text-amber-900">current</span>}
        </>
      ),
    },
    { id: "chunks", header: "Chunks", className: "tabular-nums", cell: (r) => r.chunks ?? "n/a" },
    {
      id: "recall",
      header: `Recall@${k}`,
      className: "tabular-nums",
      cell: (r) =>
        r.status === "done" && best !== null && r.recall_at_k?.[String(k)] === best ? (
          <strong>
            {recallText(r, k)}
            <span className="sr-only"> (best)</span>
          </strong>
        ) : (
          recallText(r, k)
        ),
    },
    ...others.map((at): Column<Row> => ({ id: `r${at}`, header: `R@${at}`, className: "tabular-nums", cell: (r) => recallText(r, at) })),
    { id: "mrr", header: "MRR", className: "tabular-nums", cell: (r) => (r.mrr === null ? "n/a" : r.mrr.toFixed(3)) },
    ...(showStatus
      ? [
          {
            id: "status",
            header: "Status",
            cell: (r: Row) => (r.status === "failed" ? <span className="text-red-700">Failed: {r.error}</span> : STATUS_TEXT[r.status]),
          },
        ]
      : []),
    {
      id: "apply",
      header: <span className="sr-only">Apply</span>,
      cell: (r) =>
        r.embedding_model && r.status === "done" ? (
          <span className="text-xs text-slate-600">other model: measured only</span>
        ) : onApply && r.status === "done" ? (
          <button
            type="button"
            disabled={applyDisabled}
            onClick={() => onApply(r)}
            aria-label={`Apply ${settingLabel(r)}`}
            className={APPLY_LOOK}
          >
            Apply
          </button>
        ) : null,
    },
  ];
}

/**
 * Compares chunk settings on temporary indexes and applies one to the live index. Both run in the
 * background and are followed by polling, so the page can be left and reopened.
 */
export function ChunkSweep({
  agentId,
  pairCount,
  canEdit = true,
  model,
  alternativeModel = null,
}: {
  agentId: number;
  pairCount: number;
  canEdit?: boolean;
  /** The model the app embeds with. */
  model?: string;
  /** The other provider's model, when one is configured: each setting can be measured with it too. */
  alternativeModel?: string | null;
}) {
  const [sizes, setSizes] = useState<number[]>([400, 800]);
  const [overlaps, setOverlaps] = useState<number[]>([100]);
  const [strategies, setStrategies] = useState<ChunkStrategy[]>([...CHUNK_STRATEGIES]);
  const [k, setK] = useState("3");
  const [withAlternative, setWithAlternative] = useState(false);
  const router = useRouter();
  const queryClient = useQueryClient();

  const latest = useQuery({ queryKey: queryKeys.sweepLatest(agentId), queryFn: () => fetchLatest(agentId), staleTime: 0 });
  const sweepId = latest.data?.id ?? null;
  const sweep = useQuery({
    queryKey: queryKeys.sweep(agentId, sweepId ?? 0),
    queryFn: () => apiFetch<SweepView>(`/api/agents/${agentId}/sweeps/${sweepId}`),
    enabled: sweepId !== null,
    initialData: () => (latest.data?.id === sweepId ? (latest.data ?? undefined) : undefined),
    staleTime: 0,
    refetchInterval: (q) => (!q.state.data || busy(q.state.data) ? 700 : false),
  });
  const view = sweep.data?.id === sweepId ? sweep.data : (latest.data ?? null);

  const follow = (v: SweepView) => queryClient.setQueryData(queryKeys.sweep(agentId, v.id), v);
  const start = useMutation({
    mutationFn: (body: { settings: SweepSetting[]; k: number }) => postJson<SweepView>(`/api/agents/${agentId}/sweeps`, body),
    onSuccess: (v) => {
      follow(v);
      queryClient.setQueryData(queryKeys.sweepLatest(agentId), v);
    },
  });
  const apply = useMutation({
    mutationFn: ({ id, row }: { id: number; row: number }) => postJson<SweepView>(`/api/agents/${agentId}/sweeps/${id}/apply`, { row }),
    onSuccess: follow,
  });

  // Refresh the server-rendered figures once, when an apply seen running here ends.
  const applying = useRef(false);
  const applyStatus = view?.apply?.status;
  useEffect(() => {
    if (applyStatus === "running") applying.current = true;
    else if (applyStatus && applying.current) {
      applying.current = false;
      queryClient.invalidateQueries({ queryKey: queryKeys.sweeps(agentId) });
      router.refresh();
    }
  }, [applyStatus, router, queryClient, agentId]);

  const chunkings: SweepSetting[] = SWEEP_SIZES.filter((s) => sizes.includes(s)).flatMap((chunk_size) =>
    SWEEP_OVERLAPS.filter((o) => overlaps.includes(o) && o < chunk_size).flatMap((chunk_overlap) =>
      CHUNK_STRATEGIES.filter((s) => strategies.includes(s)).map((chunk_strategy) => ({ chunk_size, chunk_overlap, chunk_strategy })),
    ),
  );
  const settings =
    alternativeModel && withAlternative
      ? [...chunkings, ...chunkings.map((s) => ({ ...s, embedding_model: alternativeModel }))]
      : chunkings;
  const n = settings.length;
  const working = busy(view) || start.isPending || apply.isPending;
  const applied = view?.apply ? view.rows[view.apply.row] : undefined;
  const onApply = (r: Row) => {
    if (!view) return;
    const docs = view.n_documents === 1 ? "the 1 document" : `all ${view.n_documents} documents`;
    if (!window.confirm(`Re-index ${docs} of this agent with ${settingLabel(r)}?`)) return;
    apply.mutate({ id: view.id, row: r.index });
  };

  return (
    <section aria-labelledby="sweep-heading" className="space-y-3 rounded border border-slate-200 bg-white p-4">
      <h2 id="sweep-heading" className="font-semibold">
        Chunk-settings sweep
      </h2>
      <p className="text-sm text-slate-600">
        Each setting re-chunks and embeds this agent&apos;s documents into a temporary index and runs every labeled pair against it, so the
        settings can be compared side by side. The live index changes only when you apply a row. You can leave this page while it runs.
      </p>
      <form
        className="space-y-3"
        aria-describedby="sweep-status"
        onSubmit={(e) => {
          e.preventDefault();
          start.mutate({ settings, k: Number(k) });
        }}
      >
        <div className="flex flex-wrap items-start gap-8">
          <CheckboxGroup legend="Chunk size (characters)" options={SWEEP_SIZES} checked={sizes} onChange={setSizes} />
          <CheckboxGroup legend="Overlap (characters)" options={SWEEP_OVERLAPS} checked={overlaps} onChange={setOverlaps} />
          <CheckboxGroup
            legend="Strategy"
            options={CHUNK_STRATEGIES}
            checked={strategies}
            onChange={setStrategies}
            label={(s) => `${s}: ${STRATEGY_LABELS[s]}`}
          />
          <div className="flex flex-col gap-1">
            <label htmlFor="sweep-k" className="text-sm font-medium">
              Compare recall at k
            </label>
            <input
              id="sweep-k"
              type="number"
              min={1}
              max={20}
              step={1}
              required
              value={k}
              onChange={(e) => setK(e.target.value)}
              className="w-24 rounded border border-slate-300 px-2 py-1.5 text-sm"
            />
          </div>
        </div>
        {alternativeModel && (
          <label className="flex items-center gap-2 text-sm">
            <input type="checkbox" checked={withAlternative} onChange={(e) => setWithAlternative(e.target.checked)} />
            Also embed each setting with {alternativeModel} (compare embedding models{model ? ` with ${model}` : ""}; measured only, not
            applied)
          </label>
        )}
        <div className="flex flex-wrap items-center gap-4">
          <button
            type="submit"
            disabled={!canEdit || pairCount === 0 || n === 0 || n > MAX_SWEEP_SETTINGS || working}
            className="rounded bg-blue-700 px-4 py-2 text-sm font-medium text-white hover:bg-blue-800 disabled:opacity-60"
          >
            {start.isPending ? "Starting…" : view?.status === "running" ? "Sweeping…" : "Run sweep"}
          </button>
          <p className="text-sm text-slate-600">
            {n} {n === 1 ? "setting" : "settings"}
            {n === 0 && ": pick at least one size, overlap and strategy"}
            {n > MAX_SWEEP_SETTINGS && `: at most ${MAX_SWEEP_SETTINGS} per sweep`}
          </p>
          {pairCount === 0 && <p className="text-sm text-slate-600">Add labeled pairs first.</p>}
          {!canEdit && <p className="text-sm text-slate-600">Only editors can run a sweep or apply a setting.</p>}
        </div>
      </form>
      <div id="sweep-status" aria-live="polite" className="space-y-1 text-sm">
        {start.error && <p className="text-red-700">Could not start the sweep: {start.error.message}</p>}
        {apply.error && <p className="text-red-700">Could not apply the setting: {apply.error.message}</p>}
        {(latest.error ?? sweep.error) && (
          <p className="text-red-700">Could not read the sweep: {(latest.error ?? sweep.error)?.message}</p>
        )}
        {view?.status === "running" && (
          <Progress
            label="Sweep progress"
            text={`Sweeping: ${view.progress.done} of ${view.progress.total} steps`}
            done={view.progress.done}
            total={view.progress.total}
          />
        )}
        {view?.status === "failed" && <p className="text-red-700">The sweep failed: {view.error}</p>}
        {view?.apply && applied && (
          <>
            {view.apply.status === "running" && (
              <Progress
                label={`Applying ${settingLabel(applied)}`}
                text={`Re-indexing with ${settingLabel(applied)}: ${view.apply.done} of ${view.apply.total} documents`}
                done={view.apply.done}
                total={view.apply.total}
              />
            )}
            {view.apply.status === "done" && (
              <p className="text-green-800">Applied: every document is indexed with {settingLabel(applied)}.</p>
            )}
            {view.apply.status === "failed" && (
              <p className="text-red-700">
                Applying {settingLabel(applied)} failed: {view.apply.error}
              </p>
            )}
          </>
        )}
      </div>
      {view && view.rows.length > 0 && (
        <div className="space-y-3">
          <p className="text-sm text-slate-600">
            Sweep #{view.id}: {view.n_pairs} pairs over {view.n_documents} documents, recall compared at k = {view.k}. MRR is the mean of 1
            / rank of the expected document.
          </p>
          <div className="relative overflow-x-auto">
            <DataTable
              label="Sweep results"
              caption={`Recall and MRR of each chunk setting at k = ${view.k}`}
              columns={columns(view, canEdit ? onApply : null, working)}
              rows={view.rows.map((r, index) => ({ ...r, index }))}
              rowKey={(r) => r.index}
            />
          </div>
          <SweepChart
            k={view.k}
            bars={view.rows.map((r) => ({ label: settingLabel(r), value: r.recall_at_k?.[String(view.k)] ?? null, current: r.current }))}
          />
        </div>
      )}
    </section>
  );
}
