"use client";

import { useQuery } from "@tanstack/react-query";
import { apiFetch } from "@/lib/client/fetch";
import { queryKeys } from "@/lib/client/query-keys";
import type { ToolCall } from "@/lib/db/tool-calls";

/** The latest run of each distinct query, the agent's and the inspector's; clicking one runs it again. */
export function RecentQueries({
  agentId,
  onPick,
}: {
  agentId: number;
  /** A logged search picked: its query, top_k and metadata filter (null: none), to run again as it was. */
  onPick: (query: string, topK: number, filter: Record<string, unknown> | null) => void;
}) {
  const calls = useQuery({
    queryKey: queryKeys.toolCalls(agentId),
    queryFn: () => apiFetch<{ tool_calls: ToolCall[] }>(`/api/agents/${agentId}/tool-calls?distinct=query&limit=15`),
    staleTime: 0,
  });
  const list = calls.data?.tool_calls ?? [];
  return (
    <section aria-labelledby="recent-heading" className="space-y-2 rounded border border-slate-200 bg-white p-3">
      <h2 id="recent-heading" className="text-sm font-semibold">
        Recent queries
      </h2>
      {list.length === 0 && <p className="text-xs text-slate-600">No searches logged for this agent yet.</p>}
      <ul className="space-y-1">
        {list.map((c) => {
          const input = JSON.parse(c.input) as { query: string; top_k: number; filter?: Record<string, unknown> };
          return (
            <li key={c.id}>
              <button
                type="button"
                onClick={() => onPick(input.query, input.top_k, input.filter ?? null)}
                className="w-full rounded px-2 py-1 text-left text-xs hover:bg-slate-100"
                title="Run this query again"
              >
                <span className="block truncate font-medium text-slate-900">{input.query}</span>
                <span className={c.ok ? "text-slate-600" : "text-red-700"}>
                  {new Date(c.created_at).toLocaleTimeString("en-GB")} · {c.source === "inspector" ? "inspector" : "agent"} · k{" "}
                  {input.top_k} · {c.latency_ms.toFixed(0)} ms · {c.ok ? `${c.result_count} results` : "failed"}
                  {input.filter && ` · filter ${JSON.stringify(input.filter)}`}
                </span>
              </button>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
