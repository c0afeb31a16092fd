import type { DocumentRow } from "@/lib/documents";
import { DeleteDocumentButton } from "./delete-document-button";

const kb = (bytes: number) => (bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`);

export function DocumentsTable({ agentId, documents }: { agentId: number; documents: DocumentRow[] }) {
  if (documents.length === 0) {
    return (
      <p className="rounded border border-dashed border-slate-300 bg-white p-8 text-center text-slate-600">
        No documents yet. Upload articles above; they become searchable once indexed.
      </p>
    );
  }
  return (
    <table className="w-full rounded border border-slate-200 bg-white text-sm">
      <caption className="sr-only">Documents</caption>
      <thead className="bg-slate-100 text-left">
        <tr>
          <th className="px-3 py-2">File</th>
          <th className="px-3 py-2">Type</th>
          <th className="px-3 py-2">Size</th>
          <th className="px-3 py-2">Chunks</th>
          <th className="px-3 py-2">Size / overlap</th>
          <th className="px-3 py-2">Status</th>
          <th className="px-3 py-2">Uploaded</th>
          <th className="px-3 py-2">
            <span className="sr-only">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {documents.map((d) => (
          <tr key={d.id} className="border-t border-slate-200">
            <td className="px-3 py-2 font-medium">{d.filename}</td>
            <td className="px-3 py-2">{d.type}</td>
            <td className="px-3 py-2">{kb(d.bytes)}</td>
            <td className="px-3 py-2">{d.chunk_count}</td>
            <td className="px-3 py-2">
              {d.chunk_size} / {d.chunk_overlap}
            </td>
            <td className="px-3 py-2">
              {d.status === "failed" ? <span className="text-red-700">failed: {d.error}</span> : d.status}
            </td>
            <td className="px-3 py-2">{new Date(d.created_at).toLocaleString("en-GB")}</td>
            <td className="px-3 py-2">
              <DeleteDocumentButton agentId={agentId} documentId={d.id} filename={d.filename} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
