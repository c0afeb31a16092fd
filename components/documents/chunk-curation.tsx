"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import {
  addChunkAction,
  changeChunkAction,
  deleteChunkAction,
  switchDocumentAction,
  undoAction,
  type CurationActionState,
} from "@/lib/actions/curation";
import { CURATION_DONE, type CurationDone } from "@/lib/client/curation-done";
import type { ChunkView } from "@/lib/ingest/curate";
import { TableContext } from "@/components/ui/table-context";
import { PageLink } from "@/components/ui/page-link";

interface Props {
  agentId: number;
  documentId: number;
  enabled: boolean;
  canUndo: boolean;
  chunks: ChunkView[];
  /** Whether this visitor may change chunks (an editor). */
  editable: boolean;
  /** The change that opened this version, said in the status line. */
  done?: CurationDone;
}

/** A query that should find this chunk: its opening words, used to jump to the inspector. */
const probeQuery = (text: string) => text.replace(/\s+/g, " ").trim().split(" ").slice(0, 12).join(" ");
const lines = (text: string) =>
  text
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);

type Editing = { chunkId: number; what: "text" | "questions" | "add" } | null;

/**
 * The document's chunks, each editable in place: its text, switched off or on, the questions it
 * answers, deleted, or a chunk written by hand added after it; the whole document off or on, and
 * the last change undone. Each change writes a new version of the document (a new id), which the
 * page then opens.
 */
export function ChunkCuration(props: Props) {
  const { agentId, documentId, chunks, editable } = props;
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const [status, setStatus] = useState<CurationActionState | null>(props.done ? { ok: true, message: CURATION_DONE[props.done] } : null);
  const [editing, setEditing] = useState<Editing>(null);
  const [draft, setDraft] = useState("");

  const apply = (change: () => Promise<CurationActionState>) =>
    startTransition(async () => {
      const result = await change();
      setStatus(result);
      if (!result.ok) return;
      setEditing(null);
      // A change writes a new version: open it, saying what was done.
      if (result.documentId !== undefined && result.documentId !== documentId)
        router.push(`/agents/${agentId}/documents/${result.documentId}${result.done ? `?done=${result.done}` : ""}`);
      else router.refresh();
    });
  const open = (chunkId: number, what: "text" | "questions" | "add", value: string) => {
    setEditing({ chunkId, what });
    setDraft(value);
    setStatus(null);
  };
  const inspect = (q: string) => `/agents/${agentId}/search?q=${encodeURIComponent(q)}&k=3&expected=${documentId}`;
  const isEditing = (c: ChunkView, what: "text" | "questions" | "add") => editing?.chunkId === c.id && editing.what === what;

  const editor = (label: string, onSave: () => void, rows = 5) => (
    <div className="mt-2 space-y-2">
      <label className="flex flex-col gap-1 text-xs font-medium">
        {label}
        <textarea
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          rows={rows}
          className="rounded border border-slate-300 p-2 font-normal text-sm"
          autoFocus
        />
      </label>
      <div className="flex gap-2">
        <button type="button" onClick={onSave} disabled={pending} className="rounded bg-blue-700 px-3 py-1 text-xs font-medium text-white">
          Save
        </button>
        <button type="button" onClick={() => setEditing(null)} className="rounded border border-slate-300 px-3 py-1 text-xs">
          Cancel
        </button>
      </div>
    </div>
  );

  const action = (label: string, onClick: () => void, srLabel: string) => (
    <button type="button" onClick={onClick} disabled={pending} className="text-blue-700 underline disabled:opacity-50">
      {label}
      <span className="sr-only"> {srLabel}</span>
    </button>
  );

  return (
    <section aria-labelledby="chunks-heading" className="space-y-2">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h3 id="chunks-heading" className="font-semibold">
          Chunks
        </h3>
        {editable && (
          <div className="flex flex-wrap items-center gap-3 text-sm">
            {props.canUndo && action("Undo last change", () => apply(() => undoAction(agentId, documentId)), "")}
            <button
              type="button"
              disabled={pending}
              onClick={() => apply(() => switchDocumentAction(agentId, documentId, !props.enabled))}
              className="rounded border border-slate-300 px-3 py-1 disabled:opacity-50"
            >
              {props.enabled ? "Switch document off" : "Switch document on"}
            </button>
          </div>
        )}
      </div>
      <p role="status" aria-live="polite" className={`text-sm ${status?.ok === false ? "text-red-700" : "text-green-800"}`}>
        {pending ? "Saving…" : status?.message}
      </p>
      {!props.enabled && (
        <p className="rounded border border-amber-300 bg-amber-50 p-2 text-sm">
          This document is switched off: its chunks are kept, and no search, answer or evaluation retrieves them.
        </p>
      )}
      {chunks.length === 0 && <p className="text-sm text-slate-600">This document has no chunks in the index.</p>}
      {editable && chunks.length > 0 && (
        <div className="text-sm">
          {editing?.chunkId === -1 && editing.what === "add"
            ? editor("Text of the new first chunk", () => apply(() => addChunkAction(agentId, documentId, { text: draft, after: null })))
            : action("Add a chunk at the start", () => open(-1, "add", ""), "")}
        </div>
      )}
      <ol className="space-y-2">
        {chunks.map((c) => (
          <li
            key={c.id}
            data-chunk-id={c.id}
            id={c.indexed !== null ? `indexed-${c.indexed}` : undefined}
            className={`scroll-mt-4 rounded border p-3 text-sm target:ring-2 target:ring-blue-600 ${c.enabled ? "border-slate-200 bg-white" : "border-dashed border-slate-300 bg-slate-50"}`}
          >
            <div className="mb-1 flex flex-wrap items-center justify-between gap-2 text-xs text-slate-600">
              <span>
                {`Chunk ${c.position}`}
                {c.hand_written ? " · written by hand" : c.edited ? " · edited" : ` · characters ${c.start}–${c.end}`}
                {c.pages && (
                  <>
                    {" · "}
                    <PageLink agentId={agentId} documentId={documentId} pages={c.pages} />
                  </>
                )}
                {` · id ${c.id}`}
                {!c.enabled && " · switched off"}
              </span>
              <span className="flex flex-wrap gap-3">
                <Link href={inspect(probeQuery(c.text))} className="text-blue-700 underline">
                  Inspect chunk {c.position}
                </Link>
                {editable && (
                  <>
                    {action("Edit", () => open(c.id, "text", c.text), `chunk ${c.position}`)}
                    {action(
                      c.enabled ? "Switch off" : "Switch on",
                      () => apply(() => changeChunkAction(agentId, c.id, { enabled: !c.enabled })),
                      `chunk ${c.position}`,
                    )}
                    {action("Questions", () => open(c.id, "questions", c.questions.join("\n")), `of chunk ${c.position}`)}
                    {action("Add after", () => open(c.id, "add", ""), `chunk ${c.position}`)}
                    {action("Delete", () => apply(() => deleteChunkAction(agentId, c.id)), `chunk ${c.position}`)}
                  </>
                )}
              </span>
            </div>
            <TableContext context={c.context} />
            {isEditing(c, "text") ? (
              editor(`Text of chunk ${c.position}`, () => apply(() => changeChunkAction(agentId, c.id, { text: draft })), 8)
            ) : (
              <p className={`whitespace-pre-wrap ${c.enabled ? "" : "text-slate-500 line-through"}`}>{c.text}</p>
            )}
            {c.questions.length > 0 && !isEditing(c, "questions") && (
              <ul aria-label={`Questions chunk ${c.position} answers`} className="mt-2 list-inside list-disc text-xs text-slate-700">
                {c.questions.map((q) => (
                  <li key={q}>{q}</li>
                ))}
              </ul>
            )}
            {isEditing(c, "questions") &&
              editor(`Questions chunk ${c.position} answers, one per line`, () =>
                apply(() => changeChunkAction(agentId, c.id, { questions: lines(draft) })),
              )}
            {isEditing(c, "add") &&
              editor(`Text of the new chunk after chunk ${c.position}`, () =>
                apply(() => addChunkAction(agentId, documentId, { text: draft, after: c.id })),
              )}
          </li>
        ))}
      </ol>
    </section>
  );
}
