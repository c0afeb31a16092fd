import type { ExpectedDiagnosis, Inspection } from "@/lib/retrieval/inspect";
import { ordinal } from "@/lib/format/ordinal";
import { indexMissSentence } from "@/lib/client/index-miss";
import { RebuildAdvice } from "./index-misses";

/** The expected document in the vector, keyword and fused lists, and which side lost it at this top_k. */
function ModeRanks({ e, topK }: { e: ExpectedDiagnosis; topK: number }) {
  const v = e.best_rank;
  const { rank: k, bm25, fused_rank: h } = e.keyword;
  const vIn = v !== null && v <= topK;
  const kIn = k !== null && k <= topK;
  const lost =
    kIn && !vIn
      ? `Keyword rank ${k}, vector rank ${v ?? "—"}: the embedding does not see this match.`
      : vIn && k === null
        ? `Vector rank ${v}, no keyword match: the query shares no word with it.`
        : vIn && !kIn
          ? `Vector rank ${v}, keyword rank ${k}: other chunks match the query's words better.`
          : null;
  return (
    <div data-testid="mode-ranks">
      <p title={bm25 === null ? undefined : `Its best keyword match has bm25 ${bm25.toFixed(2).replace("-", "−")} (lower is better).`}>
        Vector rank {v ?? "—"}
        {e.index_miss && " (by exact distance; the vector index did not return it)"} ·{" "}
        {e.keyword.not_ranked ? "keyword rank not computed" : k === null ? "no keyword match" : `keyword rank ${k}`} · hybrid rank{" "}
        {h ?? "—"}
      </p>
      {e.keyword.not_ranked && <p>Keyword rank not computed: {e.keyword.not_ranked}.</p>}
      {lost && !e.keyword.not_ranked && <p>{lost}</p>}
    </div>
  );
}

/** Where the expected document really ranked, and what top_k would have retrieved it. */
export function MissDiagnosis({ inspection, topK, space }: { inspection: Inspection; topK: number; space: string }) {
  const e = inspection.expected;
  if (!e) return null;
  if (e.filtered_out) {
    return (
      <p role="status" className="rounded border border-amber-300 bg-amber-50 p-3 text-sm">
        The metadata filter leaves {e.filename} out: with this filter no top_k can retrieve it. Check the filter the agent sent, or the
        document&apos;s metadata on the Documents tab.
      </p>
    );
  }
  if (!e.indexed) {
    return (
      <p role="status" className="rounded border border-amber-300 bg-amber-50 p-3 text-sm">
        {e.filename} has no chunks in the index, so no top_k can retrieve it. Upload or re-index it first.
      </p>
    );
  }
  // The headline and what top_k retrieves it speak of the ranking the results are in.
  const mode = inspection.mode;
  const kth =
    mode === "vector" ? inspection.distances[Math.min(topK, inspection.distances.length) - 1] : inspection.results[topK - 1]?.score;
  const missed = e.index_miss;
  // A chunk the index did not return is in no result whatever its exact rank: the document stands where the results show it.
  const vectorMiss = mode === "vector" && missed !== null;
  const listed = inspection.results.findIndex((r) => r.document_id === e.document_id) + 1;
  const rank = vectorMiss
    ? listed || null
    : mode === "vector"
      ? e.best_rank
      : mode === "keyword"
        ? (e.keyword?.rank ?? null)
        : (e.keyword?.fused_rank ?? null);
  const inMode = mode === "vector" ? "" : ` of the ${mode} ranking`;
  // Past the cut the search drops it whatever its rank, so it is a miss at this top_k too.
  const hit = rank !== null && rank <= topK && !e.beyond_cut;
  // How much closer the expected chunk must get to make the cut; only the vector ranking goes by distance.
  const gap =
    mode === "vector" && !hit && !e.beyond_cut && !vectorMiss && e.best_distance != null && kth !== undefined
      ? e.best_distance - kth
      : null;
  const behind = gap === null ? "" : `, ${gap.toFixed(4)} farther than the ${ordinal(topK)} result`;
  // The index's miss is the headline when it is why the document is not in the results.
  const missHeadline = vectorMiss && !hit && !e.beyond_cut;
  return (
    <div
      role="status"
      className={`space-y-3 rounded border p-3 text-sm ${hit ? "border-green-300 bg-green-50" : "border-amber-300 bg-amber-50"}`}
    >
      <p className="font-medium">
        {missHeadline && missed ? (
          <>
            Missed: {indexMissSentence(missed)} <RebuildAdvice />
          </>
        ) : mode === "keyword" && rank === null ? (
          `Missed: ${e.filename} shares no word with the query, so the keyword ranking never returns it.`
        ) : e.beyond_cut ? (
          `Missed: ${e.filename}${rank === null ? ": its" : ` is ranked ${rank}${inMode}, but its`} distance ${e.best_distance?.toFixed(4)} is past the no-match cut ${inspection.cut}: the agent's search drops it at any top_k.`
        ) : rank === null ? (
          `Missed: ${e.filename} is in neither list the ${mode} ranking fuses at top_k = ${topK} (vector rank ${e.best_rank ?? "—"}); a larger top_k reads both lists deeper.`
        ) : hit ? (
          `Retrieved: ${e.filename} is at rank ${rank}${inMode}, within top_k = ${topK}.`
        ) : (
          `Missed: ${e.filename} first appears at rank ${rank}${inMode}${behind}; it would need top_k ≥ ${rank}.`
        )}
      </p>
      {missed && !missHeadline && (
        <p data-testid="index-miss-note">
          {hit && vectorMiss ? "It is retrieved through another chunk, but its nearest one is missing: " : ""}
          {indexMissSentence(missed, mode === "vector" ? "results" : "vector ranking")} <RebuildAdvice />
        </p>
      )}
      {e.keyword && <ModeRanks e={e} topK={topK} />}
      {e.unreachable_chunks > 0 && (
        <p data-testid="unreachable-note">
          {e.unreachable_chunks === 1 ? "1 chunk" : `${e.unreachable_chunks} chunks`} of {e.filename} cannot be returned by the index for
          any query, although {e.unreachable_chunks === 1 ? "its distance ranks it" : "their distances rank them"} here: a gap in
          Chroma&apos;s HNSW graph. Repair them on the Index health page (or <code>npm run audit -- --repair</code>).
        </p>
      )}
      <dl className="grid grid-cols-2 gap-x-6 gap-y-1 sm:grid-cols-4">
        <div>
          <dt className="text-slate-600">{mode === "vector" ? "Best rank" : "Best vector rank"}</dt>
          <dd className="font-mono" data-testid="best-rank">
            {e.best_rank} of {inspection.total_chunks}
          </dd>
        </div>
        <div>
          <dt className="text-slate-600">Its distance</dt>
          <dd className="font-mono">{e.best_distance?.toFixed(4)}</dd>
        </div>
        <div>
          <dt className="text-slate-600">Distance of result {topK}</dt>
          <dd className="font-mono">{kth !== undefined ? kth.toFixed(4) : "—"}</dd>
        </div>
        <div>
          <dt className="text-slate-600">Needs top_k</dt>
          <dd className="font-mono" data-testid="needed-k">
            {e.beyond_cut
              ? "none: past the cut"
              : rank === null
                ? vectorMiss
                  ? "none: the index did not return it"
                  : "none: no shared word"
                : `≥ ${rank}`}
          </dd>
        </div>
      </dl>
      <div className="relative overflow-x-auto">
        <table className="w-full text-xs">
          <caption className="text-left font-medium">
            All chunks of {e.filename} ({space})
          </caption>
          <thead className="text-left whitespace-nowrap text-slate-600">
            <tr>
              <th className="py-1 pr-3">Chunk</th>
              <th className="py-1 pr-3">Rank</th>
              <th className="py-1 pr-3">Distance</th>
              <th className="py-1">Opening</th>
            </tr>
          </thead>
          <tbody>
            {e.chunks.map((c) => (
              <tr key={c.chunk_index} className="border-t border-black/10">
                <td className="py-1 pr-3">{c.chunk_index}</td>
                <td className="py-1 pr-3 font-mono">
                  {c.rank ?? `> ${e.ranked_depth}`}
                  {c.unreachable && <span className="ml-1 rounded bg-amber-200 px-1 font-sans">not returned by the index</span>}
                </td>
                <td className="py-1 pr-3 font-mono">{c.distance.toFixed(4)}</td>
                <td className="min-w-[12rem] py-1 text-slate-700">{c.chunk_text.slice(0, 120)}…</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
