import Link from "next/link";
import type { SearchResult } from "@/lib/retrieval/retrieve";
import { beyondCut } from "@/lib/retrieval/cut";
import { DataTable, type Column } from "@/components/ui/data-table";
import { Highlight } from "./highlight";

type Ranked = SearchResult & { rank: number; dropped: boolean };

function columns(agentId: number, query: string): Column<Ranked>[] {
  return [
    { id: "rank", header: "Rank", cell: (r) => r.rank },
    {
      id: "score",
      header: "Score",
      className: "font-mono",
      cell: (r) => (
        <>
          {r.score.toFixed(4)}
          {r.dropped && <span className="mt-1 block w-max rounded bg-slate-200 px-1 font-sans text-xs text-slate-700">dropped by the no-match cut</span>}
        </>
      ),
    },
    {
      id: "document",
      header: "Document",
      cell: (r) => (
        <Link href={`/agents/${agentId}/documents/${r.document_id}`} className="text-blue-700 underline">
          {r.filename}
        </Link>
      ),
    },
    { id: "chunk", header: "Chunk", cell: (r) => r.chunk_index },
    { id: "text", header: "Text", className: "whitespace-pre-wrap", cell: (r) => <Highlight text={r.chunk_text} query={query} /> },
  ];
}

/** What the agent's search itself returns of these rows, once the no-match cut has dropped the far ones. */
function CutSummary({ total, dropped, cut }: { total: number; dropped: number; cut: number }) {
  const text =
    dropped === total
      ? `The agent's search returns no results for this query: every result is past the no-match cut ${cut}.`
      : dropped === 0
        ? `The agent's search returns all ${total} of these: none is past the no-match cut ${cut} (lower distance is closer).`
        : `The agent's search returns ${total - dropped} of these ${total}: the no-match cut ${cut} drops results farther than it (lower distance is closer).`;
  return <p className={`text-sm ${dropped === total ? "rounded border border-amber-300 bg-amber-50 p-2" : "text-slate-700"}`}>{text}</p>;
}

export function ResultsTable(props: {
  results: SearchResult[];
  query: string;
  agentId: number;
  expected: number | null;
  space: string;
  stale: boolean;
  cut?: number | null;
}) {
  if (props.results.length === 0) {
    return <p className="rounded border border-dashed border-slate-300 bg-white p-6 text-center text-sm text-slate-600">No chunks: this agent has no indexed documents yet.</p>;
  }
  const cut = props.cut ?? null;
  const rows = props.results.map((r, i) => ({ ...r, rank: i + 1, dropped: beyondCut(r.score, cut) }));
  return (
    <div className="space-y-2">
      {cut !== null && <CutSummary total={rows.length} dropped={rows.filter((r) => r.dropped).length} cut={cut} />}
      <DataTable
        label="Search results"
        caption={`${props.results.length} result${props.results.length === 1 ? "" : "s"} · score is the ${props.space}`}
        captionClassName="p-2 text-left text-xs text-slate-600"
        columns={columns(props.agentId, props.query)}
        rows={rows}
        rowKey={(r) => `${r.document_id}-${r.chunk_index}`}
        rowClassName={(r) => `${r.document_id === props.expected ? "bg-amber-50" : r.dropped ? "bg-slate-50" : ""} ${r.dropped ? "text-slate-500 [&_a]:text-slate-500" : ""}`}
        busy={props.stale}
      />
    </div>
  );
}
