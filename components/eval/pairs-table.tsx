"use client";

import Link from "next/link";
import { useActionState, useEffect, useState } from "react";
import { deletePairAction, updatePairAction, type PairFormState } from "@/lib/actions/pairs";
import { SubmitButton } from "@/components/ui/submit-button";
import { ConfirmButton } from "@/components/ui/confirm-button";
import { DataTable, type Column } from "@/components/ui/data-table";
import { FileName } from "@/components/ui/file-name";
import type { PairSource } from "@/lib/validations/pair";
import { inspectorHref } from "./inspector-link";

export interface PairRowData {
  id: number;
  query: string;
  expected: string;
  note: string | null;
  /** false: no document should answer the query; `expected` is empty. */
  answerable: boolean;
  /** Null when no indexed document has the expected filename any more. */
  documentId: number | null;
  source: PairSource;
  /** The metadata filter its question is asked with (null: none). */
  filter?: Record<string, unknown> | null;
}

const SOURCE_LABEL: Record<PairSource, string> = { manual: "typed in", import: "imported", log: "from the log", generated: "generated" };

const input = "w-full rounded border border-slate-300 px-2 py-1 text-sm";

function EditRow({ agentId, pair, filenames, onDone }: { agentId: number; pair: PairRowData; filenames: string[]; onDone: () => void }) {
  const [state, action] = useActionState<PairFormState, FormData>(updatePairAction.bind(null, agentId, pair.id), {});
  useEffect(() => {
    if (state.ok) onDone();
  }, [state, onDone]);
  const formId = `edit-pair-${pair.id}`;
  const status = `${formId}-status`;
  // After a failure the row shows what was submitted, not the pair as it was.
  const values = state.values ?? { query: pair.query, expected: pair.expected, note: pair.note ?? "", unanswerable: !pair.answerable };
  const options = !pair.answerable || filenames.includes(pair.expected) ? filenames : [pair.expected, ...filenames];
  // Mirrors the box, set back to what was submitted after each save, to disable the select.
  const [unanswerable, setUnanswerable] = useState(values.unanswerable);
  const [shown, setShown] = useState(state);
  if (shown !== state) {
    setShown(state);
    setUnanswerable(values.unanswerable);
  }
  return (
    <tr className="border-t border-slate-200 bg-blue-50 align-top">
      <td className="px-3 py-2">
        <input
          form={formId}
          name="query"
          defaultValue={values.query}
          required
          aria-label="Query"
          aria-invalid={state.errors?.query ? true : undefined}
          aria-describedby={status}
          className={input}
        />
      </td>
      <td className="px-3 py-2">
        {/* A select takes its defaultValue only when it mounts: the key remounts it for each value submitted. */}
        <select
          key={values.expected}
          form={formId}
          name="expected"
          defaultValue={values.expected}
          disabled={unanswerable}
          aria-label="Expected document"
          aria-invalid={state.errors?.expected ? true : undefined}
          aria-describedby={status}
          className={input}
        >
          <option value="" disabled>
            Choose a document
          </option>
          {options.map((f) => (
            <option key={f} value={f}>
              {f}
            </option>
          ))}
        </select>
        <label className="mt-1 flex items-center gap-2 text-xs">
          <input
            form={formId}
            type="checkbox"
            name="unanswerable"
            defaultChecked={values.unanswerable}
            onChange={(e) => setUnanswerable(e.target.checked)}
            aria-describedby={status}
          />
          No document should answer this (unanswerable)
        </label>
      </td>
      <td className="px-3 py-2">
        <input
          form={formId}
          name="note"
          defaultValue={values.note}
          aria-label="Note"
          aria-invalid={state.errors?.note ? true : undefined}
          aria-describedby={status}
          className={input}
        />
      </td>
      <td className="px-3 py-2 text-xs text-slate-700">{SOURCE_LABEL[pair.source]}</td>
      <td className="px-3 py-2">
        <form id={formId} action={action} className="flex gap-2" aria-describedby={status}>
          <SubmitButton pendingText="Saving…">Save</SubmitButton>
          <button type="button" onClick={onDone} className="rounded px-3 py-2 text-sm text-slate-700 ring-1 ring-slate-300">
            Cancel
          </button>
        </form>
        <p id={status} aria-live="polite" className="mt-1 text-xs text-red-700">
          {state.ok ? null : (state.errors?.query?.[0] ?? state.errors?.expected?.[0] ?? state.errors?.note?.[0] ?? state.message)}
        </p>
      </td>
    </tr>
  );
}

function columns(agentId: number, edit: (pairId: number) => void): Column<PairRowData>[] {
  return [
    {
      id: "query",
      header: "Query",
      className: "min-w-[10rem]",
      cell: (p) => (
        <div className="space-y-0.5">
          <p>{p.query}</p>
          {p.filter && (
            <p className="font-mono text-xs text-blue-900" title="Ranked among the documents this metadata filter matches">
              filter {JSON.stringify(p.filter)}
            </p>
          )}
        </div>
      ),
    },
    {
      id: "expected",
      header: "Expected document",
      cell: (p) =>
        p.answerable ? (
          <>
            <FileName name={p.expected} />
            {p.documentId === null && <span className="ml-2 rounded bg-amber-100 px-1.5 py-0.5 text-xs text-amber-900">not indexed</span>}
          </>
        ) : (
          <>
            — <span className="rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-700">unanswerable</span>
          </>
        ),
    },
    { id: "note", header: "Note", className: "min-w-[8rem] text-slate-600", cell: (p) => p.note },
    {
      id: "source",
      header: "Source",
      className: "whitespace-nowrap",
      cell: (p) => <span className="rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-700">{SOURCE_LABEL[p.source]}</span>,
    },
    {
      id: "actions",
      header: <span className="sr-only">Actions</span>,
      cell: (p) => (
        <div className="flex items-center gap-3">
          <Link
            href={inspectorHref(agentId, p.query, 3, p.documentId, undefined, p.filter)}
            className="text-blue-700 underline"
            aria-label={`Open “${p.query}” in the inspector`}
          >
            Inspect
          </Link>
          <button type="button" onClick={() => edit(p.id)} className="text-blue-700 underline" aria-label={`Edit “${p.query}”`}>
            Edit
          </button>
          <ConfirmButton
            look="link"
            question={`Delete the pair “${p.query}”?`}
            pendingText="Deleting…"
            label={`Delete “${p.query}”`}
            onConfirm={() => deletePairAction(agentId, p.id)}
          >
            Delete
          </ConfirmButton>
        </div>
      ),
    },
  ];
}

export function PairsTable({ agentId, pairs, filenames }: { agentId: number; pairs: PairRowData[]; filenames: string[] }) {
  const [editing, setEditing] = useState<ReadonlySet<number>>(new Set());
  const setEditingOf = (pairId: number, on: boolean) =>
    setEditing((s) => {
      const next = new Set(s);
      if (on) next.add(pairId);
      else next.delete(pairId);
      return next;
    });
  if (pairs.length === 0) {
    return (
      <p className="rounded border border-dashed border-slate-300 bg-white p-8 text-center text-slate-600">
        No labeled pairs yet. Add one above, import a file, or save a query from the search inspector.
      </p>
    );
  }
  return (
    <DataTable
      caption="Labeled pairs"
      columns={columns(agentId, (pairId) => setEditingOf(pairId, true))}
      rows={pairs}
      rowKey={(p) => p.id}
      customRow={(p) =>
        editing.has(p.id) ? <EditRow agentId={agentId} pair={p} filenames={filenames} onDone={() => setEditingOf(p.id, false)} /> : null
      }
    />
  );
}
