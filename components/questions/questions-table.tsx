"use client";

import Link from "next/link";
import { useCallback, useState } from "react";
import type { QuestionView } from "@/lib/questions/list";
import { inspectorHref } from "@/components/eval/inspector-link";
import { FileName } from "@/components/ui/file-name";
import { SortableTable, type Column } from "@/components/ui/sortable-table";
import { StatusBadge } from "./status-badge";
import { TriageActions } from "./triage-actions";

export interface QuestionRow extends QuestionView {
  /** When it was last asked, written on the server so the page reads the same before and after hydration. */
  lastAskedText: string;
  /** The id of the document its pair expects, for the inspector link (null: none, or not indexed now). */
  expectedId: number | null;
}

/** The inspector opens with the app's default top_k; the agent's own calls may have asked for more. */
const INSPECT_K = 3;
const big = Number.MAX_SAFE_INTEGER;

function columns(
  agentId: number,
  documents: string[],
  canEdit: boolean,
  onDone: (question: string, message: string) => void,
): Column<QuestionRow>[] {
  const list: Column<QuestionRow>[] = [
    {
      id: "question",
      header: "Question",
      className: "min-w-[10rem]",
      cell: (q) => (
        <div className="space-y-0.5">
          <p className="font-medium [overflow-wrap:anywhere]">{q.text}</p>
          <p className="text-xs text-slate-600">
            {q.wordings > 1 && <span className="mr-2 rounded bg-slate-100 px-1.5 py-0.5 text-slate-700">{q.wordings} wordings</span>}
            latest: {q.latest.outcome}
            {q.latest.tool === "ask" ? " (ask)" : ""}
            {q.filter && (
              <span
                className="ml-2 rounded bg-blue-50 px-1.5 py-0.5 font-mono text-blue-900"
                title="The metadata filter the call was made with"
              >
                filter {JSON.stringify(q.filter)}
              </span>
            )}
          </p>
        </div>
      ),
    },
    {
      id: "asked",
      header: "Asked",
      sortValue: (q) => q.asked,
      descendingFirst: true,
      className: "tabular-nums",
      cell: (q) => q.asked.toLocaleString("en"),
    },
    {
      id: "last",
      header: "Last asked",
      sortValue: (q) => q.last_asked,
      descendingFirst: true,
      cell: (q) => <time dateTime={q.last_asked}>{q.lastAskedText}</time>,
    },
    {
      id: "distance",
      header: "Best distance",
      sortValue: (q) => q.best_distance ?? big,
      // Mono on the value, not the cell: on a phone the cell's label is drawn from the cell's own font.
      cell: (q) => <span className="whitespace-nowrap font-mono">{q.best_distance === null ? "—" : q.best_distance.toFixed(4)}</span>,
    },
    {
      id: "refused",
      header: "Refused",
      sortValue: (q) => q.refused,
      descendingFirst: true,
      className: "tabular-nums",
      cell: (q) => q.refused.toLocaleString("en"),
    },
    {
      id: "documents",
      header: "Top documents",
      cell: (q) =>
        q.top_documents.length === 0 ? (
          <span className="text-slate-500">none</span>
        ) : (
          <ol className="space-y-0.5">
            {q.top_documents.map((d) => (
              <li key={d.document_id}>
                <FileName name={d.filename} />{" "}
                <span className="whitespace-nowrap font-mono text-xs text-slate-500">{d.score.toFixed(4)}</span>
              </li>
            ))}
          </ol>
        ),
    },
    { id: "status", header: "Status", cell: (q) => <StatusBadge status={q.status} expected={q.expected} /> },
    {
      id: "actions",
      header: <span className="sr-only">Actions</span>,
      stackLabel: "",
      cell: (q) => (
        <div className="space-y-1.5">
          {canEdit && (
            <TriageActions agentId={agentId} groupId={q.id} question={q.text} status={q.status} documents={documents} onDone={onDone} />
          )}
          <Link
            href={inspectorHref(agentId, q.text, INSPECT_K, q.expectedId, undefined, q.filter)}
            className="text-sm text-blue-700 underline"
          >
            Inspect<span className="sr-only"> “{q.text}”</span>
          </Link>
        </div>
      ),
    },
  ];
  return list;
}

/** The agent's questions with their triage; one status line says what the last action did. */
export function QuestionsTable({
  agentId,
  rows,
  documents,
  canEdit,
}: {
  agentId: number;
  rows: QuestionRow[];
  documents: string[];
  canEdit: boolean;
}) {
  const [done, setDone] = useState<string | null>(null);
  const onDone = useCallback((question: string, message: string) => setDone(`“${question}”: ${message}`), []);
  return (
    <div className="space-y-2">
      <p role="status" aria-live="polite" className="min-h-5 text-sm text-green-800">
        {done}
      </p>
      <SortableTable
        caption="The agent's questions"
        columns={columns(agentId, documents, canEdit, onDone)}
        rows={rows}
        rowKey={(q) => q.id}
        stacked
      />
    </div>
  );
}
