import { DISTANCE_LABEL } from "@/lib/chroma";
import { AppError } from "@/lib/errors";
import { documentSearchTool, type SearchResult } from "@/lib/search";

async function run(agentId: number, query: string, topK: number): Promise<{ results?: SearchResult[]; error?: string }> {
  try {
    return { results: await documentSearchTool(agentId, query, topK) };
  } catch (err) {
    if (err instanceof AppError) return { error: err.message };
    return { error: "The search failed; the server log has the details." };
  }
}

/** A plain GET form, so a search is a link that can be shared and works without JavaScript. */
export async function SearchPanel({ agentId, query, topK }: { agentId: number; query: string; topK: number }) {
  const outcome = query ? await run(agentId, query, topK) : null;
  return (
    <section className="space-y-3 rounded border border-slate-200 bg-white p-4" aria-labelledby="search-heading">
      <h2 id="search-heading" className="font-semibold">
        Search this agent&apos;s documents
      </h2>
      <form method="get" className="flex flex-wrap items-end gap-4" role="search">
        <div className="flex flex-col gap-1">
          <label htmlFor="search-query" className="text-sm font-medium">
            Query
          </label>
          <input id="search-query" name="q" defaultValue={query} required className="w-96 rounded border border-slate-300 px-3 py-2 text-sm" />
        </div>
        <div className="flex flex-col gap-1">
          <label htmlFor="search-k" className="text-sm font-medium">
            top_k
          </label>
          <input id="search-k" name="k" type="number" min={1} max={100} defaultValue={topK} className="w-20 rounded border border-slate-300 px-2 py-1.5 text-sm" />
        </div>
        <button type="submit" className="rounded bg-blue-700 px-4 py-2 text-sm font-medium text-white">
          Search
        </button>
      </form>
      {outcome?.error && (
        <p role="alert" className="text-sm text-red-700">
          {outcome.error}
        </p>
      )}
      {outcome?.results && outcome.results.length === 0 && <p className="text-sm text-slate-600">No chunks found for this agent.</p>}
      {outcome?.results && outcome.results.length > 0 && (
        <table className="w-full text-sm">
          <caption className="text-left text-xs text-slate-500">Score: {DISTANCE_LABEL}</caption>
          <thead className="text-left">
            <tr>
              <th className="py-1 pr-3">Rank</th>
              <th className="py-1 pr-3">Score</th>
              <th className="py-1 pr-3">Document</th>
              <th className="py-1 pr-3">Chunk</th>
              <th className="py-1">Text</th>
            </tr>
          </thead>
          <tbody>
            {outcome.results.map((r, i) => (
              <tr key={`${r.document_id}-${r.chunk_index}`} className="border-t border-slate-200 align-top">
                <td className="py-2 pr-3">{i + 1}</td>
                <td className="py-2 pr-3 font-mono">{r.score.toFixed(4)}</td>
                <td className="py-2 pr-3">{r.filename}</td>
                <td className="py-2 pr-3">{r.chunk_index}</td>
                <td className="py-2 whitespace-pre-wrap">{r.chunk_text}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
