"use client";

import Link from "next/link";
import { useMemo, useState } from "react";
import { useQuery } from "@tanstack/react-query";
import type { DocumentRow } from "@/lib/db/documents";
import type { Facet } from "@/lib/db/metadata";
import { apiFetch } from "@/lib/client/fetch";
import { queryKeys } from "@/lib/client/query-keys";
import { plural } from "@/lib/format/plural";
import { FileName } from "@/components/ui/file-name";
import { SortableTable, type Column } from "@/components/ui/sortable-table";
import { DeleteDocumentButton } from "./delete-document-button";
import { BulkMetadataForm, FacetPicker, MetadataChips } from "./metadata-tools";

const kb = (bytes: number) =>
  bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** What the agent's calls retrieved of a served document in the coverage window (lib/questions/coverage.ts). */
export interface RowCoverage {
  retrieved: number;
  /** Calls where it came first. */
  first: number;
  last_at: string | null;
}

const when = (iso: string) => new Date(iso).toLocaleString("en-GB");

function coverageColumns(coverage: Record<number, RowCoverage> | undefined): Column<DocumentRow>[] {
  if (!coverage) return [];
  return [
    {
      id: "retrieved",
      header: "Retrieved",
      sortValue: (d) => coverage[d.id]?.retrieved ?? -1,
      className: "whitespace-nowrap tabular-nums",
      cell: (d) => {
        const c = coverage[d.id];
        if (!c) return "—";
        return c.retrieved === 0 ? <span className="text-amber-800">never</span> : `${c.retrieved} (${c.first} first)`;
      },
    },
    {
      id: "last_retrieved",
      header: "Last retrieved",
      sortValue: (d) => coverage[d.id]?.last_at ?? "",
      className: "whitespace-nowrap",
      cell: (d) => (coverage[d.id]?.last_at ? when(coverage[d.id].last_at!) : "—"),
    },
  ];
}

const columns = (
  agentId: number,
  selected: Set<number>,
  toggle: (id: number) => void,
  coverage: Record<number, RowCoverage> | undefined,
): Column<DocumentRow>[] => [
  {
    id: "select",
    header: <span className="sr-only">Select</span>,
    cell: (d) => <input type="checkbox" aria-label={`Select ${d.filename}`} checked={selected.has(d.id)} onChange={() => toggle(d.id)} />,
  },
  {
    id: "filename",
    header: "File",
    sortValue: (d) => d.filename,
    cell: (d) => (
      <Link href={`/agents/${agentId}/documents/${d.id}`} className="font-medium text-blue-700 underline">
        <FileName name={d.filename} />
      </Link>
    ),
  },
  { id: "type", header: "Type", sortValue: (d) => d.type, cell: (d) => d.type },
  { id: "metadata", header: "Metadata", cell: (d) => <MetadataChips metadata={d.metadata} /> },
  { id: "bytes", header: "Size", sortValue: (d) => d.bytes, className: "whitespace-nowrap", cell: (d) => kb(d.bytes) },
  { id: "chunk_count", header: "Chunks", sortValue: (d) => d.chunk_count, cell: (d) => d.chunk_count },
  ...coverageColumns(coverage),
  {
    id: "status",
    header: "Status",
    sortValue: (d) => d.status,
    cell: (d) =>
      d.status === "failed" ? (
        <span className="text-red-700">failed: {d.error}</span>
      ) : d.status === "ready" && d.enabled === 0 ? (
        <span className="text-amber-800">switched off</span>
      ) : (
        d.status
      ),
  },
  {
    id: "created_at",
    header: "Uploaded",
    sortValue: (d) => d.created_at,
    className: "whitespace-nowrap",
    cell: (d) => when(d.created_at),
  },
  {
    id: "chunking",
    header: "Chunking",
    className: "whitespace-nowrap",
    cell: (d) => `${d.chunk_size} / ${d.chunk_overlap} ${d.chunk_strategy}`,
  },
  {
    id: "actions",
    header: <span className="sr-only">Actions</span>,
    cell: (d) => <DeleteDocumentButton agentId={agentId} documentId={d.id} filename={d.filename} chunks={d.chunk_count} />,
  },
];

type FacetValue = Facet["values"][number]["value"];

/** The browser's metadata filter: the chosen facet values (all must hold) and a typed filter, as one `where`. */
function whereOf(chosen: Record<string, FacetValue>, typed: Record<string, unknown> | null): Record<string, unknown> | null {
  const parts: Record<string, unknown>[] = Object.entries(chosen).map(([k, v]) => ({ [k]: v }));
  if (typed) parts.push(typed);
  return parts.length === 0 ? null : parts.length === 1 ? parts[0] : { $and: parts };
}

export function DocumentsTable(props: {
  agentId: number;
  documents: DocumentRow[];
  facets?: Facet[];
  /** By document id: what the agent's calls retrieved of each served document (absent: no coverage columns). */
  coverage?: Record<number, RowCoverage>;
}) {
  const { agentId, documents, facets = [], coverage } = props;
  const [filter, setFilter] = useState("");
  const [chosen, setChosen] = useState<Record<string, FacetValue>>({});
  const [typedText, setTypedText] = useState("");
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const typed = useMemo((): { where: Record<string, unknown> | null; error: string | null } => {
    if (!typedText.trim()) return { where: null, error: null };
    try {
      const v = JSON.parse(typedText) as unknown;
      if (typeof v === "object" && v !== null && !Array.isArray(v)) return { where: v as Record<string, unknown>, error: null };
    } catch {
      // reported below
    }
    return { where: null, error: 'A filter is a JSON object, as {"product": "router"} or {"firmware": {"$gte": 3}}.' };
  }, [typedText]);
  const where = whereOf(chosen, typed.where);
  const whereJson = where ? JSON.stringify(where) : null;
  // The server applies the filter, as a search would (lib/db/metadata.ts): the list shows what it matches.
  const matched = useQuery({
    queryKey: [...queryKeys.agent(agentId), "documents", whereJson],
    queryFn: () =>
      apiFetch<{ documents: DocumentRow[]; filter_matched_documents: number }>(
        `/api/agents/${agentId}/documents?filter=${encodeURIComponent(whereJson!)}`,
      ),
    enabled: whereJson !== null,
  });
  const rows = useMemo(() => {
    const f = filter.trim().toLowerCase();
    const base = whereJson === null ? documents : (matched.data?.documents ?? []);
    return base.filter((d) => d.filename.toLowerCase().includes(f));
  }, [documents, filter, whereJson, matched.data]);
  const toggle = (id: number) =>
    setSelected((s) => {
      const next = new Set(s);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const shownIds = rows.map((d) => d.id);
  const allShown = shownIds.length > 0 && shownIds.every((id) => selected.has(id));

  if (documents.length === 0) {
    return (
      <p className="rounded border border-dashed border-slate-300 bg-white p-8 text-center text-slate-600">
        No documents yet. Upload articles below; they become searchable once indexed.
      </p>
    );
  }
  return (
    <div className="space-y-2">
      <FacetPicker
        facets={facets}
        chosen={chosen}
        onChoose={(key, value) =>
          setChosen((c) => {
            const next = { ...c };
            if (value === null) delete next[key];
            else next[key] = value;
            return next;
          })
        }
      />
      <div className="flex flex-wrap items-center gap-4 text-sm">
        <label className="flex flex-wrap items-center gap-2">
          Filter by name
          <input
            value={filter}
            onChange={(e) => setFilter(e.target.value)}
            className="w-64 max-w-full rounded border border-slate-300 px-2 py-1"
          />
        </label>
        <label className="flex flex-wrap items-center gap-2">
          Metadata filter
          <input
            value={typedText}
            onChange={(e) => setTypedText(e.target.value)}
            placeholder='{"firmware": {"$gte": 3}}'
            className="w-72 max-w-full rounded border border-slate-300 px-2 py-1 font-mono"
          />
        </label>
        <label className="flex items-center gap-1">
          <input
            type="checkbox"
            checked={allShown}
            onChange={() => setSelected(allShown ? new Set() : new Set([...selected, ...shownIds]))}
          />
          Select all shown
        </label>
      </div>
      {typed.error && <p className="text-sm text-red-700">{typed.error}</p>}
      {whereJson !== null && (
        <p className="text-sm text-slate-700" aria-live="polite">
          {matched.isPending
            ? "Filtering…"
            : matched.error
              ? `The filter was refused: ${matched.error.message}`
              : `The filter matches ${plural(matched.data!.filter_matched_documents, "document")}.`}
        </p>
      )}
      {selected.size > 0 && <BulkMetadataForm agentId={agentId} selected={[...selected]} onDone={() => void matched.refetch()} />}
      <SortableTable
        caption="Documents"
        columns={columns(agentId, selected, toggle, coverage)}
        rows={rows}
        rowKey={(d) => d.id}
        initialSort={{ column: "created_at", direction: "descending" }}
      />
      {rows.length === 0 && whereJson === null && <p className="text-sm text-slate-600">No document name contains “{filter}”.</p>}
    </div>
  );
}
