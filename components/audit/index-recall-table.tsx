import Link from "next/link";
import type { IndexRecall } from "@/lib/retrieval/index-recall";
import { percent, servedHow, servingNow } from "@/lib/client/index-recall";
import { plural } from "@/lib/format/plural";
import { DataTable, type Column } from "@/components/ui/data-table";
import type { ExactState } from "@/lib/index-upkeep/health";

export interface RecallRow {
  name: string;
  recall: IndexRecall;
}

const figure = (v: number | null) => (v === null ? "—" : percent(v));

const COLUMNS: Column<RecallRow>[] = [
  {
    id: "agent",
    header: "Agent",
    cell: (r) => (
      <Link href={`/agents/${r.recall.agent_id}`} className="text-blue-700 underline [overflow-wrap:anywhere]">
        {r.name}
      </Link>
    ),
  },
  {
    id: "served",
    header: "Searches get",
    className: "tabular-nums",
    cell: (r) =>
      r.recall.served_recall === null ? (
        <span className="text-slate-500">{r.recall.reason}</span>
      ) : (
        <span className={r.recall.below_threshold ? "font-semibold text-amber-900" : undefined}>
          {figure(r.recall.served_recall)} <span className="font-normal text-slate-500">({servedHow(r.recall)})</span>
          {servingNow(r.recall) && <span className="block text-xs font-normal text-slate-600">{servingNow(r.recall)}</span>}
        </span>
      ),
  },
  { id: "index", header: "Chroma's index alone", className: "tabular-nums", cell: (r) => figure(r.recall.index_recall) },
  // Never measured is no figure, not 0 searches replayed.
  {
    id: "queries",
    header: "Searches replayed",
    className: "tabular-nums",
    cell: (r) => (r.recall.measured_at ? r.recall.queries.toLocaleString("en") : "—"),
  },
  {
    id: "when",
    header: "Measured",
    className: "whitespace-nowrap",
    cell: (r) =>
      r.recall.measured_at ? <time dateTime={r.recall.measured_at}>{new Date(r.recall.measured_at).toLocaleString("en-GB")}</time> : "—",
  },
];

/**
 * Every agent's latest index recall@k: its recent searches replayed through the ranking searches
 * get and through Chroma's index alone, against the exact ranking; a warning below the threshold.
 */
export function IndexRecallTable({ rows, threshold, exact }: { rows: RecallRow[]; threshold: number; exact: ExactState }) {
  const low = rows.filter((r) => r.recall.below_threshold);
  return (
    <section aria-labelledby="index-recall-heading" className="space-y-2 rounded border border-slate-200 bg-white p-4">
      <h2 id="index-recall-heading" className="font-semibold">
        Index recall@10
      </h2>
      <p className="text-sm text-slate-600">
        Each hour, in the background, the app replays each agent&apos;s latest distinct searches (up to 20) and compares what they return,
        and what Chroma&apos;s approximate index alone returns, with the exact nearest 10 chunks. Below {percent(threshold)} (
        <code>INDEX_RECALL_WARN</code>) searches are missing chunks they should find.
      </p>
      <p className="text-sm text-slate-600" data-testid="exact-ranking-state">
        {exact.max_chunks > 0 ? (
          <>
            Agents of up to {exact.max_chunks.toLocaleString("en")} chunks (<code>EXACT_MAX_CHUNKS</code>) are ranked exactly, every chunk
            scored; their vectors take {exact.held_mb.toLocaleString("en")} MB of memory, of the {exact.memory_mb.toLocaleString("en")} MB
            allowed (<code>EXACT_MEMORY_MB</code>).
          </>
        ) : (
          <>
            Exact ranking is off (<code>EXACT_MAX_CHUNKS=0</code>): every search is Chroma&apos;s approximate index.
          </>
        )}{" "}
        {exact.large_agents.length > 0 && (
          <>
            Past the limit, an agent is ranked exactly from a compact table (a byte a dimension, its candidates scored again from their
            float32 copies on disk), within the same memory:{" "}
            {exact.large_agents.map((a, i) => (
              <span key={a.agent_id} data-testid="large-agent-serving">
                {i > 0 && "; "}
                {a.name} ({a.chunks.toLocaleString("en")} chunks), {a.serving}
              </span>
            ))}
            .{" "}
          </>
        )}
        {exact.documents_without_copy > 0 &&
          `${plural(exact.documents_without_copy, "document")} not yet copied for exact ranking (their agents are served by Chroma's index until then)${exact.copying ? "; copying now" : ""}${exact.copy_error ? `; the last copy stopped: ${exact.copy_error}` : ""}.`}
      </p>
      {low.length > 0 && (
        <p className="rounded border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900">
          Searches of {plural(low.length, "agent")} ({low.map((r) => r.name).join(", ")}) return less than {percent(threshold)} of their
          nearest 10 chunks. Rebuilding the vector index builds its graph afresh:{" "}
          <a href="#rebuild-heading" className="text-blue-700 underline">
            Rebuild the vector index
          </a>{" "}
          below, then measure again on the agent&apos;s page.
        </p>
      )}
      {rows.length === 0 ? (
        <p className="text-sm text-slate-500">No agents yet.</p>
      ) : (
        <DataTable
          caption="Index recall@10 per agent"
          columns={COLUMNS}
          rows={rows}
          rowKey={(r) => r.recall.agent_id}
          rowClassName={(r) => (r.recall.below_threshold ? "bg-amber-50" : "")}
          stacked
        />
      )}
    </section>
  );
}
