import Link from "next/link";
import type { Inspection } from "@/lib/retrieval/inspect";
import { capped, indexMissSentence } from "@/lib/client/index-miss";

/** Lines shown before the rest are only counted. */
const MAX_LINES = 3;

/** What to do about approximate-search misses: a fresh graph from the stored vectors. */
export function RebuildAdvice() {
  return (
    <>
      Rebuild the index on{" "}
      <Link href="/audit" className="text-blue-700 underline">
        Index health
      </Link>
      .
    </>
  );
}

/** The chunks nearer than a result that the vector index did not return, one sentence each, above the results. */
export function IndexMisses({ inspection }: { inspection: Inspection }) {
  // Keyword results do not come from the vector index: its misses do not change them.
  if (inspection.mode === "keyword") return null;
  if (inspection.index_misses.length === 0) {
    return inspection.exact_unavailable && inspection.results.length > 0 ? (
      <p role="status" className="text-xs text-slate-600">
        These results come from the approximate vector index and could not be checked against the exact ranking, which is not available for
        this agent yet.
      </p>
    ) : null;
  }
  const { shown, more } = capped(inspection.index_misses, MAX_LINES);
  const of = inspection.mode === "vector" ? "results" : "vector ranking";
  return (
    <div role="status" data-testid="index-misses" className="space-y-1 rounded border border-amber-300 bg-amber-50 p-3 text-sm">
      <ul className="space-y-1">
        {shown.map((m) => (
          <li key={`${m.document_id}-${m.chunk_index}`}>{indexMissSentence(m, of)}</li>
        ))}
      </ul>
      {more > 0 && <p>And {more} more.</p>}
      <p>
        <RebuildAdvice />
      </p>
    </div>
  );
}
