import Link from "next/link";
import { notFound } from "next/navigation";
import { agentFromParams } from "@/lib/http/agent-param";
import { currentIdentity } from "@/lib/auth";
import { findDocument } from "@/lib/db/documents";
import { curationLog } from "@/lib/db/curation-log";
import { CARRY_POLICY } from "@/lib/ingest/carry";
import { documentCuration } from "@/lib/ingest/curate";
import { ChunkCuration } from "@/components/documents/chunk-curation";
import { isCurationDone } from "@/lib/client/curation-done";
import { ChunkedText } from "@/components/documents/chunked-text";
import { ReindexForm } from "@/components/documents/reindex-form";
import { STRATEGY_LABELS } from "@/lib/core/chunking";
import { DeleteDocumentButton } from "@/components/documents/delete-document-button";
import { plural } from "@/lib/format/plural";
import { ocrSummary } from "@/lib/extract/ocr-record";
import { hasDocumentFile } from "@/lib/db/document-files";
import { viewerHref } from "@/components/ui/page-link";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ id: string; docId: string }>; searchParams: Promise<{ done?: string }> };

export default async function DocumentPage({ params, searchParams }: Props) {
  const agent = await agentFromParams(params);
  const { docId } = await params;
  const doc = /^\d+$/.test(docId) ? findDocument(agent.id, Number(docId)) : undefined;
  if (!doc) notFound();
  // The chunks as they are indexed (their text and offsets are stored with the document), and those switched off.
  const curation = doc.status === "ready" ? documentCuration(doc) : { enabled: doc.enabled !== 0, chunks: [], can_undo: false };
  const drawn = curation.chunks.filter((c) => c.enabled && !c.hand_written && !c.edited);
  const chunks = drawn.map((c) => ({ index: c.position, start: c.start, end: c.end, text: c.text }));
  const canEdit = (await currentIdentity())?.role === "editor";
  const { done } = await searchParams;
  const log = curationLog(agent.id, doc.filename, 10);
  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div className="min-w-0">
          <h2 className="text-xl font-semibold [overflow-wrap:anywhere]">{doc.filename}</h2>
          <p className="text-sm text-slate-600">
            {doc.type} · {doc.bytes.toLocaleString("en")} bytes · {doc.text.length.toLocaleString("en")} characters ·{" "}
            {plural(doc.chunk_count, "chunk")} of {doc.chunk_size} with {doc.chunk_overlap} overlap, split{" "}
            {STRATEGY_LABELS[doc.chunk_strategy]} · {doc.status}
            {doc.error ? `: ${doc.error}` : ""} · embedded with {doc.embedding_model}
          </p>
          {doc.ocr && (
            <p className="text-sm text-slate-600" data-testid="ocr-summary">
              {ocrSummary(doc.ocr)}
            </p>
          )}
          {doc.source_url && /^https?:\/\//i.test(doc.source_url) && (
            <p className="text-sm text-slate-600 [overflow-wrap:anywhere]">
              Fetched from{" "}
              <a href={doc.source_url} className="text-blue-700 underline">
                {doc.source_url}
              </a>
              {doc.fetched_at && (
                <>
                  , last fetched <time dateTime={doc.fetched_at}>{new Date(doc.fetched_at).toLocaleString("en-GB")}</time>
                </>
              )}
              .
            </p>
          )}
        </div>
        <div className="flex items-center gap-3">
          {hasDocumentFile(agent.id, doc.sha256) && (
            <Link href={viewerHref(agent.id, doc.id, 1)} className="text-sm text-blue-700 underline">
              Open the PDF{doc.page_starts ? ` (${plural(doc.page_starts.length, "page")})` : ""}
            </Link>
          )}
          <Link href={`/agents/${agent.id}`} className="text-sm text-blue-700 underline">
            All documents
          </Link>
        </div>
      </div>
      <ReindexForm
        agentId={agent.id}
        documentId={doc.id}
        size={doc.chunk_size}
        overlap={doc.chunk_overlap}
        strategy={doc.chunk_strategy}
        curated={curation.chunks.some((c) => !c.enabled || c.edited || c.hand_written || c.questions.length > 0) || !curation.enabled}
      />
      <ChunkedText text={doc.text} chunks={chunks} label={`${plural(chunks.length, "chunk")} drawn on the extracted text`} />
      {doc.curation_note && (
        <section aria-labelledby="curation-note-heading" className="rounded border border-amber-300 bg-amber-50 p-3 text-sm">
          <h3 id="curation-note-heading" className="font-semibold">
            Curation not carried over
          </h3>
          <p className="mb-1 text-slate-700">The last replace or re-chunk could not keep these changes; they are kept here:</p>
          <ul className="list-inside list-disc">
            {doc.curation_note.split("\n").map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        </section>
      )}
      <ChunkCuration
        agentId={agent.id}
        documentId={doc.id}
        enabled={curation.enabled}
        canUndo={curation.can_undo}
        chunks={curation.chunks}
        editable={canEdit && doc.status === "ready"}
        done={isCurationDone(done) ? done : undefined}
      />
      <details className="rounded border border-slate-200 bg-white p-3 text-sm">
        <summary className="cursor-pointer font-medium">
          What happens to these changes when the document is replaced, re-chunked or re-synced
        </summary>
        <ul className="mt-2 list-inside list-disc text-slate-700">
          {CARRY_POLICY.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
        <p className="mt-2 text-slate-600">Re-indexing below shows what it would keep before it runs.</p>
      </details>
      {log.length > 0 && (
        <details className="rounded border border-slate-200 bg-white p-3 text-sm">
          <summary className="cursor-pointer font-medium">Changes to this document ({log.length})</summary>
          <ol className="mt-2 space-y-1 text-slate-700">
            {log.map((e) => (
              <li key={e.id}>
                <time dateTime={e.at}>{new Date(e.at).toLocaleString("en-GB")}</time> · {e.action}
                {e.chunk_id !== null && ` · chunk ${e.chunk_id}`}
                {e.detail && ` · ${e.detail}`} · by {e.actor ?? "unknown"}
              </li>
            ))}
          </ol>
        </details>
      )}
      <div className="border-t border-slate-200 pt-4">
        <DeleteDocumentButton agentId={agent.id} documentId={doc.id} filename={doc.filename} chunks={doc.chunk_count} />
      </div>
    </div>
  );
}
