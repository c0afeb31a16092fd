import Link from "next/link";
import { notFound } from "next/navigation";
import { agentFromParams } from "@/lib/http/agent-param";
import { storedChunks } from "@/lib/db/chunks";
import { findDocument } from "@/lib/db/documents";
import { ChunkedText } from "@/components/documents/chunked-text";
import { ReindexForm } from "@/components/documents/reindex-form";
import { STRATEGY_LABELS } from "@/lib/core/chunking";
import { DeleteDocumentButton } from "@/components/documents/delete-document-button";
import { plural } from "@/lib/format/plural";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ id: string; docId: string }> };

/** A query that should find this chunk: its opening words, used to jump to the inspector. */
const probeQuery = (text: string) => text.replace(/\s+/g, " ").trim().split(" ").slice(0, 12).join(" ");

export default async function DocumentPage({ params }: Props) {
  const agent = await agentFromParams(params);
  const { docId } = await params;
  const doc = /^\d+$/.test(docId) ? findDocument(agent.id, Number(docId)) : undefined;
  if (!doc) notFound();
  // The chunks as they were indexed (their text and offsets are stored with the document).
  const chunks = doc.status === "ready" ? storedChunks(doc.id) : [];
  const inspect = (q: string) => `/agents/${agent.id}/search?q=${encodeURIComponent(q)}&k=3&expected=${doc.id}`;
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
          <Link href={`/agents/${agent.id}`} className="text-sm text-blue-700 underline">
            All documents
          </Link>
        </div>
      </div>
      <ReindexForm agentId={agent.id} documentId={doc.id} size={doc.chunk_size} overlap={doc.chunk_overlap} strategy={doc.chunk_strategy} />
      <ChunkedText text={doc.text} chunks={chunks} label={`${plural(chunks.length, "chunk")} drawn on the extracted text`} />
      <section aria-labelledby="chunks-heading" className="space-y-2">
        <h3 id="chunks-heading" className="font-semibold">
          Chunks
        </h3>
        {chunks.length === 0 && <p className="text-sm text-slate-600">This document has no chunks in the index.</p>}
        <ol className="space-y-2">
          {chunks.map((c) => (
            <li key={c.index} className="rounded border border-slate-200 bg-white p-3 text-sm">
              <div className="mb-1 flex flex-wrap items-center justify-between gap-2 text-xs text-slate-600">
                <span>
                  Chunk {c.index} · characters {c.start}–{c.end}
                </span>
                <Link href={inspect(probeQuery(c.text))} className="text-blue-700 underline">
                  Inspect chunk {c.index}
                </Link>
              </div>
              <p className="whitespace-pre-wrap">{c.text}</p>
            </li>
          ))}
        </ol>
      </section>
      <div className="border-t border-slate-200 pt-4">
        <DeleteDocumentButton agentId={agent.id} documentId={doc.id} filename={doc.filename} chunks={doc.chunk_count} />
      </div>
    </div>
  );
}
