"use client";

import { keepPreviousData, useQuery, useQueryClient } from "@tanstack/react-query";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { savePairAction } from "@/lib/actions/inspector";
import { apiFetch, postJson } from "@/lib/client/fetch";
import type { Inspection } from "@/lib/retrieval/inspect";
import { DistanceNote } from "@/components/ui/distance-note";
import { queryKeys } from "@/lib/client/query-keys";
import { plural } from "@/lib/format/plural";
import { indexMissSentence } from "@/lib/client/index-miss";
import { INSPECTOR_MAX_K as MAX_K } from "@/lib/validations/search";
import type { RetrievalMode } from "@/lib/validations/agent";
import { QueryWords } from "./query-words";
import { AskPanel } from "./ask-panel";
import { DistanceChart } from "./distance-chart";
import { IndexMisses } from "./index-misses";
import { MissDiagnosis } from "./miss-diagnosis";
import { ModeSwitch, parseMode } from "./mode-switch";
import { RecentQueries } from "./recent-queries";
import { ResultsTable } from "./results-table";
import { SuggestedFixes } from "./suggested-fixes";
import { useDebounced } from "./use-debounced";

export interface InspectorProps {
  agentId: number;
  documents: { id: number; filename: string }[];
  space: string;
  /** How this provider makes query vectors, when that is worth knowing to read a distance. */
  queryNote?: string;
  initial: { query: string; topK: number; expected: number | null; draft: number | null; filter?: string };
  /** The agent's drafts: the inspector can rank as one of them would leave the agent. */
  drafts: { id: number; name: string }[];
}

/** The filter field's text as the JSON the inspector sends (null: none), or why it is not a filter. */
function parseFilterText(text: string): { json: string | null; error: string | null } {
  if (!text) return { json: null, error: null };
  try {
    const v = JSON.parse(text) as unknown;
    if (typeof v === "object" && v !== null && !Array.isArray(v)) return { json: JSON.stringify(v), error: null };
  } catch {
    // reported below
  }
  return { json: null, error: 'The filter is a JSON object, as {"product": "router"} or {"firmware": {"$gte": 3}}.' };
}

export function Inspector({ agentId, documents, space, queryNote, initial, drafts }: InspectorProps) {
  const router = useRouter();
  const pathname = usePathname();
  const client = useQueryClient();
  const [query, setQuery] = useState(initial.query);
  const [topK, setTopK] = useState(initial.topK);
  const [expected, setExpected] = useState<number | null>(initial.expected);
  const [draft, setDraft] = useState<number | null>(initial.draft);
  // null: rank as the agent does; a pick is kept in the URL like the query.
  const searchParams = useSearchParams();
  const [mode, setMode] = useState<RetrievalMode | null>(() => parseMode(searchParams?.get("mode") ?? null));
  const [saved, setSaved] = useState<{ ok?: boolean; message?: string } | null>(null);
  const [filterText, setFilterText] = useState(initial.filter ?? "");
  const q = useDebounced(query.trim(), 350);
  // The metadata filter the search ranks under: JSON as the agent's tool call sends it.
  const filterState = parseFilterText(useDebounced(filterText.trim(), 350));
  const filter = filterState.json;
  const k = useDebounced(topK, 250);
  const diagnosis = useRef<HTMLDivElement>(null);

  // The URL carries the whole state, so a link to a miss can be shared.
  useEffect(() => {
    const params = new URLSearchParams();
    if (q) params.set("q", q);
    params.set("k", String(k));
    if (expected !== null) params.set("expected", String(expected));
    if (mode !== null) params.set("mode", mode);
    if (draft !== null) params.set("draft", String(draft));
    if (filter !== null) params.set("filter", filter);
    router.replace(`${pathname}?${params}`, { scroll: false });
  }, [q, k, expected, mode, draft, filter, pathname, router]);

  // The agent's own mode: the switch's default, named beside another pick.
  const agent = useQuery({
    queryKey: queryKeys.agentRecord(agentId),
    queryFn: () => apiFetch<{ retrieval_mode: RetrievalMode }>(`/api/agents/${agentId}`),
    staleTime: 0,
  });

  // One request per change of query, k, expected document or mode: the list and the diagnosis
  // come from the same ranking.
  const inspection = useQuery({
    queryKey: queryKeys.inspect(agentId, q, k, expected, mode, draft, filter),
    queryFn: async () => {
      const res = await postJson<Inspection>(`/api/agents/${agentId}/inspect${draft === null ? "" : `?draft=${draft}`}`, {
        query: q,
        top_k: k,
        expected_document_id: expected ?? undefined,
        mode: mode ?? undefined,
        filter: filter === null ? undefined : JSON.parse(filter),
      });
      void client.invalidateQueries({ queryKey: queryKeys.toolCalls(agentId) });
      return res;
    },
    enabled: q.length > 0 && filterState.error === null,
    placeholderData: keepPreviousData,
    retry: false,
    staleTime: 0,
  });

  const save = async () => {
    if (expected === null) return;
    setSaved(await savePairAction(agentId, q, expected));
  };

  const results = inspection.data?.results ?? [];
  const agentMode = agent.data?.retrieval_mode ?? (mode === null ? inspection.data?.mode : undefined);
  const best = inspection.data?.expected;
  // A best chunk the index did not return has no bar of its own: it is among the chart's diamonds.
  const expectedBar = best && !best.chunks[0]?.unreachable && !best.index_miss ? best.best_rank : null;
  return (
    <div className="grid grid-cols-[minmax(0,1fr)] gap-6 lg:grid-cols-[minmax(0,1fr)_16rem]">
      <div className="min-w-0 space-y-4">
        <div className="grid grid-cols-[minmax(0,1fr)] gap-4 rounded border border-slate-200 bg-white p-4 md:grid-cols-[minmax(0,1fr)_14rem]">
          <label className="flex flex-col gap-1 text-sm font-medium">
            Query
            <input
              type="search"
              value={query}
              onChange={(e) => setQuery(e.target.value)}
              placeholder="Ask what a user would ask"
              className="rounded border border-slate-300 px-3 py-2 font-normal"
            />
          </label>
          <label className="flex flex-col gap-1 text-sm font-medium">
            <span>
              top_k: <output className="font-mono">{topK}</output>
            </span>
            <input type="range" min={1} max={MAX_K} value={topK} onChange={(e) => setTopK(Number(e.target.value))} aria-label="top_k" />
          </label>
          <label className="flex flex-col gap-1 text-sm font-medium md:col-span-2">
            Expected document (why did it miss?)
            <div className="flex flex-wrap gap-3">
              <select
                value={expected ?? ""}
                onChange={(e) => {
                  setExpected(e.target.value ? Number(e.target.value) : null);
                  setSaved(null);
                }}
                className="min-w-64 rounded border border-slate-300 px-2 py-1.5 font-normal"
              >
                <option value="">None chosen</option>
                {documents.map((d) => (
                  <option key={d.id} value={d.id}>
                    {d.filename}
                  </option>
                ))}
              </select>
              <button
                type="button"
                onClick={save}
                disabled={expected === null || !q}
                className="rounded border border-slate-300 px-3 py-1.5 text-sm font-normal hover:bg-slate-50 disabled:opacity-50"
              >
                Save as labeled pair
              </button>
              <span aria-live="polite" className={`self-center text-sm font-normal ${saved?.ok ? "text-green-800" : "text-red-700"}`}>
                {saved?.message}
              </span>
            </div>
          </label>
          <label className="flex flex-col gap-1 text-sm font-medium md:col-span-2">
            Metadata filter (as the agent&apos;s call sends it; optional)
            <input
              value={filterText}
              onChange={(e) => setFilterText(e.target.value)}
              placeholder='{"product": "router", "locale": "de"}'
              className="rounded border border-slate-300 px-3 py-1.5 font-mono font-normal"
            />
            {filterState.error ? (
              <span className="font-normal text-red-700">{filterState.error}</span>
            ) : (
              inspection.data?.filter_matched_documents != null && (
                <span className="font-normal text-slate-700" aria-live="polite">
                  {inspection.data.filter_matched_documents === 0
                    ? "The filter matches no document, so the search returns nothing."
                    : `Ranked among the ${plural(inspection.data.filter_matched_documents, "document")} the filter matches.`}
                </span>
              )
            )}
          </label>
          <ModeSwitch value={mode ?? agentMode} agentMode={agentMode} onChange={setMode} />
          {drafts.length > 0 && (
            <label className="flex flex-col gap-1 text-sm font-medium md:col-span-2">
              Rank as
              <select
                value={draft ?? ""}
                onChange={(e) => setDraft(e.target.value ? Number(e.target.value) : null)}
                className="min-w-64 self-start rounded border border-slate-300 px-2 py-1.5 font-normal"
              >
                <option value="">What the agent serves</option>
                {drafts.map((d) => (
                  <option key={d.id} value={d.id}>
                    Draft {d.id}: {d.name}
                  </option>
                ))}
              </select>
              {draft !== null && (
                <span className="font-normal text-amber-800">
                  Ranked as draft {draft} would leave the agent: not what it serves until the draft is published.
                </span>
              )}
            </label>
          )}
          {queryNote && <p className="text-xs text-slate-500 md:col-span-2">{queryNote}</p>}
        </div>

        {!q && <p className="text-sm text-slate-600">Type a query to see the chunks this agent retrieves for it, closest first.</p>}
        {inspection.error && (
          <p role="alert" className="rounded border border-red-200 bg-red-50 p-3 text-sm text-red-800">
            {inspection.error.message}
          </p>
        )}
        {q && inspection.data?.query_words && <QueryWords words={inspection.data.query_words} totalChunks={inspection.data.total_chunks} />}
        {q && inspection.data?.stale_cut && (
          <p className="rounded border border-amber-300 bg-amber-50 p-3 text-sm">
            This agent&apos;s no-match cut {inspection.data.stale_cut.max_distance} was set for {inspection.data.stale_cut.model} and does
            not apply to the configured model&apos;s distances; set it again on the Settings tab.
          </p>
        )}
        {q && inspection.data && inspection.data.results.length > 0 && <DistanceNote />}
        {inspection.data && expected !== null && (
          <div ref={diagnosis} tabIndex={-1} className="scroll-mt-4 rounded outline-none focus:ring-2 focus:ring-blue-400">
            <MissDiagnosis inspection={inspection.data} topK={topK} space={space} />
          </div>
        )}
        {q && inspection.data?.expected?.indexed && expected !== null && draft === null && (
          <SuggestedFixes key={`${q}|${expected}|${k}`} agentId={agentId} query={q} documentId={expected} topK={k} />
        )}
        {/* The chart is of the vector ranking: its top_k line would not say what another mode retrieves. */}
        {inspection.data?.mode === "vector" && (
          <DistanceChart
            distances={inspection.data.distances}
            topK={topK}
            expectedRank={expectedBar}
            space={space}
            cut={inspection.data.cut}
            misses={inspection.data.index_misses.map((m) => ({
              distance: m.distance,
              slot: m.nearer_than ?? m.exact_rank,
              label: indexMissSentence(m),
              expected: m.document_id === expected,
            }))}
          />
        )}
        {q && inspection.data && <IndexMisses inspection={inspection.data} />}
        {q && inspection.data && (
          <ResultsTable
            results={results}
            mode={inspection.data.mode}
            totalChunks={inspection.data.total_chunks}
            query={q}
            agentId={agentId}
            expected={expected}
            space={space}
            stale={inspection.isPlaceholderData}
            cut={inspection.data.cut}
            sourceUrls={inspection.data.source_urls}
            reranker={inspection.data.reranker}
          />
        )}
        {q && (
          <AskPanel
            agentId={agentId}
            question={query.trim()}
            topK={topK}
            filter={filter}
            hasExpected={expected !== null}
            onShowDiagnosis={() => {
              diagnosis.current?.scrollIntoView({ behavior: "smooth", block: "start" });
              diagnosis.current?.focus({ preventScroll: true });
            }}
          />
        )}
      </div>
      <RecentQueries
        agentId={agentId}
        onPick={(pq, pk, pf) => {
          setQuery(pq);
          setTopK(Math.min(Math.max(pk, 1), MAX_K));
          setFilterText(pf ? JSON.stringify(pf) : "");
        }}
      />
    </div>
  );
}
