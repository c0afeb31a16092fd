import Link from "next/link";
import type { SearchResult } from "@/lib/retrieval/retrieve";
import { Highlight } from "./highlight";

export function ResultsTable(props: { results: SearchResult[]; query: string; agentId: number; expected: number | null; space: string; stale: boolean }) {
  if (props.results.length === 0) {
    return <p className="rounded border border-dashed border-slate-300 bg-white p-6 text-center text-sm text-slate-600">No chunks: this agent has no indexed documents yet.</p>;
  }
  return (
    <table aria-label="Search results" className={`w-full rounded border border-slate-200 bg-white text-sm ${props.stale ? "opacity-60" : ""}`} aria-busy={props.stale}>
      <caption className="p-2 text-left text-xs text-slate-600">
        {props.results.length} result{props.results.length === 1 ? "" : "s"} · score is the {props.space}
      </caption>
      <thead className="bg-slate-100 text-left">
        <tr>
          <th className="px-3 py-2">Rank</th>
          <th className="px-3 py-2">Score</th>
          <th className="px-3 py-2">Document</th>
          <th className="px-3 py-2">Chunk</th>
          <th className="px-3 py-2">Text</th>
        </tr>
      </thead>
      <tbody>
        {props.results.map((r, i) => (
          <tr key={`${r.document_id}-${r.chunk_index}`} className={`border-t border-slate-200 align-top ${r.document_id === props.expected ? "bg-amber-50" : ""}`}>
            <td className="px-3 py-2">{i + 1}</td>
            <td className="px-3 py-2 font-mono">{r.score.toFixed(4)}</td>
            <td className="px-3 py-2">
              <Link href={`/agents/${props.agentId}/documents/${r.document_id}`} className="text-blue-700 underline">
                {r.filename}
              </Link>
            </td>
            <td className="px-3 py-2">{r.chunk_index}</td>
            <td className="px-3 py-2 whitespace-pre-wrap">
              <Highlight text={r.chunk_text} query={props.query} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
