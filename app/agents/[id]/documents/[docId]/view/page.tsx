import Link from "next/link";
import { notFound } from "next/navigation";
import { agentFromParams } from "@/lib/http/agent-param";
import { findDocument } from "@/lib/db/documents";
import { hasDocumentFile } from "@/lib/db/document-files";
import { documentCuration } from "@/lib/ingest/curate";
import { pageLabel } from "@/lib/core/pages";
import { PdfViewer } from "@/components/documents/pdf-viewer";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ id: string; docId: string }>; searchParams: Promise<{ page?: string }> };

/** A document's uploaded PDF, opened at a page (`?page=`, from a chunk's page link), with the chunks that lie on each page. */
export default async function DocumentViewerPage({ params, searchParams }: Props) {
  const agent = await agentFromParams(params);
  const { docId } = await params;
  const doc = /^\d+$/.test(docId) ? findDocument(agent.id, Number(docId)) : undefined;
  if (!doc) notFound();
  const asked = Number((await searchParams).page);
  const page = Number.isInteger(asked) && asked >= 1 ? asked : 1;
  const documentHref = `/agents/${agent.id}/documents/${doc.id}`;
  const kept = hasDocumentFile(agent.id, doc.sha256);
  const chunks = doc.status === "ready" || doc.status === "draft" ? documentCuration(doc).chunks.filter((c) => c.pages) : [];
  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-start justify-between gap-4">
        <h2 className="text-xl font-semibold [overflow-wrap:anywhere]">{doc.filename}</h2>
        <Link href={documentHref} className="text-sm text-blue-700 underline">
          Back to the document
        </Link>
      </div>
      {kept ? (
        <PdfViewer src={`/api/agents/${agent.id}/documents/${doc.id}/file`} filename={doc.filename} initialPage={page} />
      ) : (
        <p className="rounded border border-amber-300 bg-amber-50 p-3 text-sm">
          The file of this document is not kept: only PDFs uploaded since pages were recorded are. Upload the same file again to keep it;
          its chunks then show their pages too.
        </p>
      )}
      {chunks.length > 0 && (
        <details className="rounded border border-slate-200 bg-white p-3 text-sm">
          <summary className="cursor-pointer font-medium">Chunks and their pages ({chunks.length})</summary>
          <ul className="mt-2 space-y-1">
            {chunks.map((c) => (
              <li key={c.id}>
                <Link href={c.indexed !== null ? `${documentHref}#indexed-${c.indexed}` : documentHref} className="text-blue-700 underline">
                  Chunk {c.position}
                </Link>{" "}
                · {pageLabel(c.pages!)} · {c.text.replace(/\s+/g, " ").slice(0, 100)}
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}
