import Link from "next/link";
import type { Inspection } from "@/lib/retrieval/inspect";
import type { InspectedResult } from "@/lib/retrieval/read-types";
import { FEATURE_LABELS, type FeatureName } from "@/lib/rerank/features";
import type { RetrievalMode } from "@/lib/validations/agent";
import { beyondCut } from "@/lib/retrieval/cut";
import { DataTable, type Column } from "@/components/ui/data-table";
import { FileName } from "@/components/ui/file-name";
import { TableContext } from "@/components/ui/table-context";
import { PageLink } from "@/components/ui/page-link";
import { Highlight } from "./highlight";

/** Keyword and hybrid results also say where they stand in each list; reranked ones where the reranker put them. */
type Result = InspectedResult;
type Ranked = Result & { rank: number; dropped: boolean };
type RerankedBy = Inspection["reranker"];

const NO_VECTOR_RANK = "Below the part of the vector ranking that was read for this query.";
const NO_KEYWORD_RANK = "No word of the query is in this chunk, so the keyword ranking does not have it.";
const signed = (n: number) => n.toFixed(2).replace("-", "−");

/** Where one result stands in the vector, keyword and (hybrid) fused rankings. */
function Breakdown({ r, mode }: { r: Ranked; mode: RetrievalMode }) {
  return (
    <span data-testid="rank-breakdown">
      <span
        className="whitespace-nowrap"
        title={r.vector_rank == null ? NO_VECTOR_RANK : "Rank in the vector ranking and the vector distance (lower is closer)."}
      >
        vector {r.vector_rank == null ? "—" : `#${r.vector_rank}`} · {r.score.toFixed(3)}
      </span>
      {" | "}
      <span
        className="whitespace-nowrap"
        title={r.keyword_rank == null ? NO_KEYWORD_RANK : "Rank among the keyword matches and the bm25 (lower is better)."}
      >
        keyword {r.keyword_rank == null || r.bm25 == null ? "—" : `#${r.keyword_rank} · bm25 ${signed(r.bm25)}`}
      </span>
      {mode === "hybrid" && (
        <>
          {" | "}
          <span className="whitespace-nowrap" title="Rank after reciprocal rank fusion of the two lists.">
            fused #{r.fused_rank ?? "—"}
          </span>
        </>
      )}
    </span>
  );
}

/** A reranker's feature in words; MMR's one feature is not among the learned reranker's. */
const featureLabel = (feature: string) => FEATURE_LABELS[feature as FeatureName] ?? feature.replaceAll("_", " ");
const contribution = (n: number) => `${n < 0 ? "−" : "+"}${Math.abs(n).toFixed(2)}`;

/** The reranker's score (higher is better), the result's place in the mode's order before, and what moved the score most. */
function RerankCell({ r }: { r: Ranked }) {
  if (r.rerank_score === undefined) return "—";
  return (
    <>
      <span className="font-mono">{r.rerank_score.toFixed(3)}</span>
      {r.pool_rank !== undefined && <span className="block whitespace-nowrap text-xs text-slate-600">was #{r.pool_rank}</span>}
      {r.rerank_features && r.rerank_features.length > 0 && (
        <ul aria-label="What moved it" className="mt-1 space-y-0.5 text-xs text-slate-700">
          {r.rerank_features.map((f) => (
            <li key={f.feature}>
              <span className="font-mono">{contribution(f.contribution)}</span> {featureLabel(f.feature)}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

/** Only a web page is linked: a stored URL that is anything else is not followed. */
const webPage = (url: string | undefined) => (url && /^https?:\/\//i.test(url) ? url : null);

function columns(
  agentId: number,
  query: string,
  mode: RetrievalMode,
  sourceUrls: Record<number, string>,
  reranked: boolean,
): Column<Ranked>[] {
  return [
    { id: "rank", header: "Rank", cell: (r) => r.rank },
    {
      id: "score",
      header: "Score",
      className: "font-mono",
      cell: (r) => (
        <>
          {r.score.toFixed(4)}
          {r.dropped && (
            <span className="mt-1 block w-max rounded bg-slate-200 px-1 font-sans text-xs text-slate-700">dropped by the no-match cut</span>
          )}
        </>
      ),
    },
    ...(reranked
      ? [{ id: "rerank", header: "Reranker score", className: "min-w-[12rem]", cell: (r: Ranked) => <RerankCell r={r} /> }]
      : []),
    ...(mode === "vector"
      ? []
      : [{ id: "lists", header: "In each ranking", className: "font-mono text-xs", cell: (r: Ranked) => <Breakdown r={r} mode={mode} /> }]),
    {
      id: "document",
      header: "Document",
      cell: (r) => {
        const source = webPage(sourceUrls[r.document_id]);
        return (
          <>
            <Link href={`/agents/${agentId}/documents/${r.document_id}`} className="text-blue-700 underline">
              <FileName name={r.filename} />
            </Link>
            {r.pages && (
              <>
                {" "}
                <PageLink agentId={agentId} documentId={r.document_id} pages={r.pages} />
              </>
            )}
            {source && (
              <>
                {" "}
                <a href={source} className="whitespace-nowrap text-xs text-blue-700 underline">
                  source<span className="sr-only"> page {source}</span>
                </a>
              </>
            )}
          </>
        );
      },
    },
    {
      id: "chunk",
      header: "Chunk",
      // Opens the chunk on its document's page, where an editor can edit it, switch it off or attach questions.
      cell: (r) => (
        <Link href={`/agents/${agentId}/documents/${r.document_id}#indexed-${r.chunk_index}`} className="text-blue-700 underline">
          {r.chunk_index}
          <span className="sr-only">: open chunk {r.chunk_index} on its page</span>
        </Link>
      ),
    },
    // Never narrower than a readable line, however many columns stand beside it.
    {
      id: "text",
      header: "Text",
      stackLabel: "",
      className: "min-w-[16rem] whitespace-pre-wrap",
      cell: (r) => (
        <>
          <TableContext context={r.context} />
          <Highlight text={r.chunk_text} query={query} byStem={mode !== "vector"} />
        </>
      ),
    },
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
  results: Result[];
  mode: RetrievalMode;
  totalChunks: number;
  query: string;
  agentId: number;
  expected: number | null;
  space: string;
  stale: boolean;
  cut?: number | null;
  /** Document id → the page it was fetched from, for documents synced from a source. */
  sourceUrls?: Record<number, string>;
  /** The reranker that reordered the mode's first candidates (null or absent: none). */
  reranker?: RerankedBy;
}) {
  if (props.results.length === 0) {
    return (
      <p className="rounded border border-dashed border-slate-300 bg-white p-6 text-center text-sm text-slate-600">
        {props.mode === "keyword" && props.totalChunks > 0
          ? "No results: no chunk shares a word with this query, so the keyword ranking has nothing to return."
          : "No chunks: this agent has no indexed documents yet."}
      </p>
    );
  }
  const cut = props.cut ?? null;
  const rows = props.results.map((r, i) => ({ ...r, rank: i + 1, dropped: beyondCut(r.score, cut) }));
  const ranking =
    props.mode === "vector"
      ? ""
      : ` · ranked by ${props.mode === "keyword" ? "keyword (bm25, lower is better)" : "hybrid (fused vector and keyword ranks)"}`;
  const reranker = props.reranker ?? null;
  return (
    <div className="space-y-2">
      {reranker && (
        <p className="text-sm text-slate-700">
          Reranked by <strong>{reranker.version}</strong>: the first {reranker.candidates} of the {props.mode} order. The reranker score is
          higher for better; &ldquo;was&rdquo; is the result&apos;s place in the {props.mode} order before.
        </p>
      )}
      {cut !== null && <CutSummary total={rows.length} dropped={rows.filter((r) => r.dropped).length} cut={cut} />}
      <DataTable
        label="Search results"
        caption={`${props.results.length} result${props.results.length === 1 ? "" : "s"} · score is the ${props.space}${ranking}${reranker ? ` · reranked by ${reranker.version}` : ""}`}
        captionClassName="p-2 text-left text-xs text-slate-600"
        columns={columns(props.agentId, props.query, props.mode, props.sourceUrls ?? {}, reranker !== null)}
        rows={rows}
        rowKey={(r) => `${r.document_id}-${r.chunk_index}`}
        rowClassName={(r) =>
          `${r.document_id === props.expected ? "bg-amber-50" : r.dropped ? "bg-slate-50" : ""} ${r.dropped ? "text-slate-500 [&_a]:text-slate-500" : ""}`
        }
        busy={props.stale}
        stacked
      />
    </div>
  );
}
