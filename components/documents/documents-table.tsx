"use client";

import Link from "next/link";
import { useMemo, useState } from "react";
import type { DocumentRow } from "@/lib/db/documents";
import { DeleteDocumentButton } from "./delete-document-button";

const kb = (bytes: number) => (bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`);

type SortKey = "filename" | "type" | "bytes" | "chunk_count" | "status" | "created_at";
const COLUMNS: { key: SortKey; label: string }[] = [
  { key: "filename", label: "File" },
  { key: "type", label: "Type" },
  { key: "bytes", label: "Size" },
  { key: "chunk_count", label: "Chunks" },
  { key: "status", label: "Status" },
  { key: "created_at", label: "Uploaded" },
];

export function DocumentsTable({ agentId, documents }: { agentId: number; documents: DocumentRow[] }) {
  const [filter, setFilter] = useState("");
  const [sort, setSort] = useState<{ key: SortKey; dir: 1 | -1 }>({ key: "created_at", dir: -1 });
  const rows = useMemo(() => {
    const f = filter.trim().toLowerCase();
    return documents
      .filter((d) => d.filename.toLowerCase().includes(f))
      .sort((a, b) => (a[sort.key] < b[sort.key] ? -1 : a[sort.key] > b[sort.key] ? 1 : 0) * sort.dir);
  }, [documents, filter, sort]);

  if (documents.length === 0) {
    return (
      <p className="rounded border border-dashed border-slate-300 bg-white p-8 text-center text-slate-600">
        No documents yet. Upload articles above; they become searchable once indexed.
      </p>
    );
  }
  return (
    <div className="space-y-2">
      <label className="flex items-center gap-2 text-sm">
        Filter by name
        <input value={filter} onChange={(e) => setFilter(e.target.value)} className="w-64 rounded border border-slate-300 px-2 py-1" />
      </label>
      <table className="w-full rounded border border-slate-200 bg-white text-sm">
        <caption className="sr-only">Documents</caption>
        <thead className="bg-slate-100 text-left">
          <tr>
            {COLUMNS.map((c) => (
              <th key={c.key} className="px-3 py-2" aria-sort={sort.key === c.key ? (sort.dir === 1 ? "ascending" : "descending") : "none"}>
                <button
                  type="button"
                  className="font-semibold hover:underline"
                  onClick={() => setSort((s) => ({ key: c.key, dir: s.key === c.key ? ((-s.dir) as 1 | -1) : 1 }))}
                >
                  {c.label}
                  {sort.key === c.key ? (sort.dir === 1 ? " ▲" : " ▼") : ""}
                </button>
              </th>
            ))}
            <th className="px-3 py-2">Chunk size / overlap</th>
            <th className="px-3 py-2">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((d) => (
            <tr key={d.id} className="border-t border-slate-200">
              <td className="px-3 py-2">
                <Link href={`/agents/${agentId}/documents/${d.id}`} className="font-medium text-blue-700 underline">
                  {d.filename}
                </Link>
              </td>
              <td className="px-3 py-2">{d.type}</td>
              <td className="px-3 py-2">{kb(d.bytes)}</td>
              <td className="px-3 py-2">{d.chunk_count}</td>
              <td className="px-3 py-2">
                {d.status === "failed" ? <span className="text-red-700">failed: {d.error}</span> : d.status}
              </td>
              <td className="px-3 py-2">{new Date(d.created_at).toLocaleString("en-GB")}</td>
              <td className="px-3 py-2">
                {d.chunk_size} / {d.chunk_overlap}
              </td>
              <td className="px-3 py-2">
                <DeleteDocumentButton agentId={agentId} documentId={d.id} filename={d.filename} chunks={d.chunk_count} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {rows.length === 0 && <p className="text-sm text-slate-600">No document name contains “{filter}”.</p>}
    </div>
  );
}
