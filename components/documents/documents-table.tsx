"use client";

import Link from "next/link";
import { useMemo, useState } from "react";
import type { DocumentRow } from "@/lib/db/documents";
import { FileName } from "@/components/ui/file-name";
import { SortableTable, type Column } from "@/components/ui/sortable-table";
import { DeleteDocumentButton } from "./delete-document-button";

const kb = (bytes: number) =>
  bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;

const columns = (agentId: number): Column<DocumentRow>[] => [
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
  { id: "bytes", header: "Size", sortValue: (d) => d.bytes, className: "whitespace-nowrap", cell: (d) => kb(d.bytes) },
  { id: "chunk_count", header: "Chunks", sortValue: (d) => d.chunk_count, cell: (d) => d.chunk_count },
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
    cell: (d) => new Date(d.created_at).toLocaleString("en-GB"),
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

export function DocumentsTable({ agentId, documents }: { agentId: number; documents: DocumentRow[] }) {
  const [filter, setFilter] = useState("");
  const rows = useMemo(() => {
    const f = filter.trim().toLowerCase();
    return documents.filter((d) => d.filename.toLowerCase().includes(f));
  }, [documents, filter]);

  if (documents.length === 0) {
    return (
      <p className="rounded border border-dashed border-slate-300 bg-white p-8 text-center text-slate-600">
        No documents yet. Upload articles above; they become searchable once indexed.
      </p>
    );
  }
  return (
    <div className="space-y-2">
      <label className="flex flex-wrap items-center gap-2 text-sm">
        Filter by name
        <input
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
          className="w-64 max-w-full rounded border border-slate-300 px-2 py-1"
        />
      </label>
      <SortableTable
        caption="Documents"
        columns={columns(agentId)}
        rows={rows}
        rowKey={(d) => d.id}
        initialSort={{ column: "created_at", direction: "descending" }}
      />
      {rows.length === 0 && <p className="text-sm text-slate-600">No document name contains “{filter}”.</p>}
    </div>
  );
}
