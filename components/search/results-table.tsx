import Link from "next/link";
import type { SearchResult } from "@/lib/retrieval/retrieve";
import { DataTable, type Column } from "@/components/ui/data-table";
import { Highlight } from "./highlight";

type Ranked = SearchResult & { rank: number };

function columns(agentId: number, query: string): Column<Ranked>[] {
  return [
    { id: "rank", header: "Rank", cell: (r) => r.rank },
    { id: "score", header: "Score", className: "font-mono", cell: (r) => r.score.toFixed(4) },
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

export function ResultsTable(props: { results: SearchResult[]; query: string; agentId: number; expected: number | null; space: string; stale: boolean }) {
  if (props.results.length === 0) {
    return <p className="rounded border border-dashed border-slate-300 bg-white p-6 text-center text-sm text-slate-600">No chunks: this agent has no indexed documents yet.</p>;
  }
  return (
    <DataTable
      label="Search results"
      caption={`${props.results.length} result${props.results.length === 1 ? "" : "s"} · score is the ${props.space}`}
      captionClassName="p-2 text-left text-xs text-slate-600"
      columns={columns(props.agentId, props.query)}
      rows={props.results.map((r, i) => ({ ...r, rank: i + 1 }))}
      rowKey={(r) => `${r.document_id}-${r.chunk_index}`}
      rowClassName={(r) => (r.document_id === props.expected ? "bg-amber-50" : "")}
      busy={props.stale}
    />
  );
}
