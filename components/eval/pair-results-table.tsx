"use client";

import Link from "next/link";
import { useMemo, useState } from "react";
import { inspectorHref } from "./inspector-link";
import { distanceText, OutcomeBadge, outcomeOf, rankText } from "./outcome-badge";

export interface ResultRow {
  query: string;
  expected: string;
  /** The expected document's id now, for the inspector link; null when it is not indexed. */
  documentId: number | null;
  rank: number | null;
  distance: number | null;
  missing: boolean;
}

type Key = "query" | "expected" | "rank" | "distance" | "outcome";
const OUTCOME_ORDER = { miss: 0, missing: 1, hit: 2 };
const COLUMNS: { key: Key; label: string }[] = [
  { key: "query", label: "Query" },
  { key: "expected", label: "Expected document" },
  { key: "rank", label: "Rank" },
  { key: "distance", label: "Best distance" },
  { key: "outcome", label: "Outcome" },
];

const big = Number.MAX_SAFE_INTEGER;
function value(r: ResultRow, key: Key, k: number): string | number {
  if (key === "query" || key === "expected") return r[key].toLowerCase();
  if (key === "rank") return r.missing ? big : (r.rank ?? big - 1);
  if (key === "distance") return r.distance ?? big;
  return OUTCOME_ORDER[outcomeOf(r, k)];
}

export function PairResultsTable({ agentId, rows, k }: { agentId: number; rows: ResultRow[]; k: number }) {
  // Misses first, the worst rank first: what someone opening this table is looking for.
  const [sort, setSort] = useState<{ key: Key; asc: boolean }>({ key: "outcome", asc: true });
  const [onlyMisses, setOnlyMisses] = useState(false);
  const shown = useMemo(() => {
    const list = onlyMisses ? rows.filter((r) => outcomeOf(r, k) === "miss") : [...rows];
    const dir = sort.asc ? 1 : -1;
    return list.sort((a, b) => {
      const [x, y] = [value(a, sort.key, k), value(b, sort.key, k)];
      if (x !== y) return (x < y ? -1 : 1) * dir;
      return (value(b, "rank", k) as number) - (value(a, "rank", k) as number);
    });
  }, [rows, sort, onlyMisses, k]);
  const toggle = (key: Key) => setSort((s) => (s.key === key ? { key, asc: !s.asc } : { key, asc: key !== "distance" && key !== "rank" ? true : false }));

  return (
    <div className="space-y-2">
      <div className="flex items-center justify-between text-sm">
        <label className="flex items-center gap-2">
          <input type="checkbox" checked={onlyMisses} onChange={(e) => setOnlyMisses(e.target.checked)} /> Only misses
        </label>
        <span className="text-slate-500">
          Showing {shown.length} of {rows.length} pairs
        </span>
      </div>
      <table className="w-full rounded border border-slate-200 bg-white text-sm">
        <caption className="sr-only">Result of every pair at k = {k}</caption>
        <thead className="bg-slate-100 text-left">
          <tr>
            {COLUMNS.map((c) => (
              <th key={c.key} className="px-3 py-2" aria-sort={sort.key === c.key ? (sort.asc ? "ascending" : "descending") : "none"}>
                <button type="button" onClick={() => toggle(c.key)} className="font-semibold hover:underline">
                  {c.key === "outcome" ? `At k = ${k}` : c.label}
                  <span aria-hidden className="ml-1 text-slate-400">
                    {sort.key === c.key ? (sort.asc ? "▲" : "▼") : "↕"}
                  </span>
                </button>
              </th>
            ))}
            <th className="px-3 py-2">
              <span className="sr-only">Inspect</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {shown.map((r) => (
            <tr key={`${r.query}\u0000${r.expected}`} className="border-t border-slate-200 align-top">
              <td className="px-3 py-2">{r.query}</td>
              <td className="px-3 py-2">{r.expected}</td>
              <td className="px-3 py-2 tabular-nums">{rankText(r)}</td>
              <td className="px-3 py-2 font-mono">{distanceText(r.distance)}</td>
              <td className="px-3 py-2">
                <OutcomeBadge outcome={outcomeOf(r, k)} />
              </td>
              <td className="px-3 py-2 whitespace-nowrap">
                <Link href={inspectorHref(agentId, r.query, k, r.documentId)} className="text-blue-700 underline" aria-label={`Open “${r.query}” in the inspector`}>
                  Inspect
                </Link>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
