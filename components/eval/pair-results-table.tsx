"use client";

import Link from "next/link";
import { useState } from "react";
import { FileName } from "@/components/ui/file-name";
import { SortableTable, type Column } from "@/components/ui/sortable-table";
import { inspectorHref } from "./inspector-link";
import { distanceText, isWrong, OutcomeBadge, outcomeOf, rankText } from "./outcome-badge";

export interface ResultRow {
  query: string;
  expected: string;
  /** The expected document's id now, for the inspector link; null when it is not indexed. */
  documentId: number | null;
  rank: number | null;
  distance: number | null;
  missing: boolean;
  /** Ranked, but past the run's no-match cut: the search dropped it, a miss at every k. */
  beyondCut: boolean;
  /** false: no document should answer the query; it has no rank, only its closest chunk's distance. */
  answerable: boolean;
  topDistance: number | null;
  /** For an unanswerable pair: its closest chunk is past the run's cut, so the search returned nothing. */
  refused: boolean | null;
}

const OUTCOME_ORDER = { miss: 0, cut: 0, answered: 0, missing: 1, hit: 2, refused: 2 };
const big = Number.MAX_SAFE_INTEGER;
const rankValue = (r: ResultRow) => (r.missing || !r.answerable ? big : (r.rank ?? big - 1));
const distanceOf = (r: ResultRow) => (r.answerable ? r.distance : r.topDistance);
// Among equals, the worst rank first.
const worstRankFirst = (a: ResultRow, b: ResultRow) => rankValue(b) - rankValue(a);

function columns(agentId: number, k: number): Column<ResultRow>[] {
  return [
    { id: "query", header: "Query", sortValue: (r) => r.query.toLowerCase(), className: "min-w-[10rem]", cell: (r) => r.query },
    {
      id: "expected",
      header: "Expected document",
      sortValue: (r) => r.expected.toLowerCase(),
      cell: (r) => (r.answerable ? <FileName name={r.expected} /> : <span className="text-slate-600">— (unanswerable)</span>),
    },
    { id: "rank", header: "Rank", sortValue: rankValue, descendingFirst: true, className: "tabular-nums", cell: rankText },
    {
      id: "distance",
      header: "Best distance",
      sortValue: (r) => distanceOf(r) ?? big,
      descendingFirst: true,
      className: "whitespace-nowrap font-mono",
      cell: (r) => (r.answerable ? distanceText(r.distance) : `${distanceText(r.topDistance)} (closest)`),
    },
    {
      id: "outcome",
      header: `At k = ${k}`,
      sortValue: (r) => OUTCOME_ORDER[outcomeOf(r, k)],
      className: "whitespace-nowrap",
      cell: (r) => <OutcomeBadge outcome={outcomeOf(r, k)} />,
    },
    {
      id: "inspect",
      header: <span className="sr-only">Inspect</span>,
      className: "whitespace-nowrap",
      cell: (r) => (
        <Link
          href={inspectorHref(agentId, r.query, k, r.documentId)}
          className="text-blue-700 underline"
          aria-label={`Open “${r.query}” in the inspector`}
        >
          Inspect
        </Link>
      ),
    },
  ];
}

export function PairResultsTable({ agentId, rows, k }: { agentId: number; rows: ResultRow[]; k: number }) {
  const [onlyMisses, setOnlyMisses] = useState(false);
  const shown = onlyMisses ? rows.filter((r) => isWrong(outcomeOf(r, k))) : rows;

  return (
    <div className="space-y-2">
      <div className="flex flex-wrap items-center justify-between gap-x-4 gap-y-1 text-sm">
        <label className="flex items-center gap-2">
          <input type="checkbox" checked={onlyMisses} onChange={(e) => setOnlyMisses(e.target.checked)} /> Only misses
        </label>
        <span className="text-slate-500">
          Showing {shown.length} of {rows.length} pairs
        </span>
      </div>
      <SortableTable
        caption={`Result of every pair at k = ${k}`}
        columns={columns(agentId, k)}
        rows={shown}
        rowKey={(r) => `${r.query}\u0000${r.expected}`}
        // Misses first, the worst rank first: what someone opening this table is looking for.
        initialSort={{ column: "outcome", direction: "ascending" }}
        tieBreak={worstRankFirst}
      />
    </div>
  );
}
