"use client";

import Link from "next/link";
import { useActionState, useEffect, useState } from "react";
import { deletePairAction, updatePairAction, type PairFormState } from "@/lib/actions/pairs";
import { SubmitButton } from "@/components/ui/submit-button";
import { inspectorHref } from "./inspector-link";

export interface PairRowData {
  id: number;
  query: string;
  expected: string;
  note: string | null;
  /** Null when no indexed document has the expected filename any more. */
  documentId: number | null;
}

const input = "w-full rounded border border-slate-300 px-2 py-1 text-sm";

function EditRow({ agentId, pair, filenames, onDone }: { agentId: number; pair: PairRowData; filenames: string[]; onDone: () => void }) {
  const [state, action] = useActionState<PairFormState, FormData>(updatePairAction.bind(null, agentId, pair.id), {});
  useEffect(() => {
    if (state.ok) onDone();
  }, [state, onDone]);
  const formId = `edit-pair-${pair.id}`;
  const options = filenames.includes(pair.expected) ? filenames : [pair.expected, ...filenames];
  return (
    <tr className="border-t border-slate-200 bg-blue-50 align-top">
      <td className="px-3 py-2">
        <input form={formId} name="query" defaultValue={pair.query} required aria-label="Query" className={input} />
      </td>
      <td className="px-3 py-2">
        <select form={formId} name="expected" defaultValue={pair.expected} aria-label="Expected document" className={input}>
          {options.map((f) => (
            <option key={f} value={f}>
              {f}
            </option>
          ))}
        </select>
      </td>
      <td className="px-3 py-2">
        <input form={formId} name="note" defaultValue={pair.note ?? ""} aria-label="Note" className={input} />
      </td>
      <td className="px-3 py-2">
        <form id={formId} action={action} className="flex gap-2" aria-describedby={`${formId}-status`}>
          <SubmitButton pendingText="Saving…">Save</SubmitButton>
          <button type="button" onClick={onDone} className="rounded px-3 py-2 text-sm text-slate-700 ring-1 ring-slate-300">
            Cancel
          </button>
        </form>
        <p id={`${formId}-status`} aria-live="polite" className="mt-1 text-xs text-red-700">
          {state.ok ? null : (state.errors?.query?.[0] ?? state.errors?.expected?.[0] ?? state.message)}
        </p>
      </td>
    </tr>
  );
}

function Row({ agentId, pair, filenames }: { agentId: number; pair: PairRowData; filenames: string[] }) {
  const [editing, setEditing] = useState(false);
  if (editing) return <EditRow agentId={agentId} pair={pair} filenames={filenames} onDone={() => setEditing(false)} />;
  return (
    <tr className="border-t border-slate-200 align-top">
      <td className="px-3 py-2">{pair.query}</td>
      <td className="px-3 py-2">
        {pair.expected}
        {pair.documentId === null && <span className="ml-2 rounded bg-amber-100 px-1.5 py-0.5 text-xs text-amber-900">not indexed</span>}
      </td>
      <td className="px-3 py-2 text-slate-600">{pair.note}</td>
      <td className="px-3 py-2">
        <div className="flex items-center gap-3">
          <Link href={inspectorHref(agentId, pair.query, 3, pair.documentId)} className="text-blue-700 underline" aria-label={`Open “${pair.query}” in the inspector`}>
            Inspect
          </Link>
          <button type="button" onClick={() => setEditing(true)} className="text-blue-700 underline" aria-label={`Edit “${pair.query}”`}>
            Edit
          </button>
          <form
            action={deletePairAction.bind(null, agentId, pair.id)}
            onSubmit={(e) => {
              if (!confirm(`Delete the pair “${pair.query}”?`)) e.preventDefault();
            }}
          >
            <button type="submit" className="text-red-700 underline" aria-label={`Delete “${pair.query}”`}>
              Delete
            </button>
          </form>
        </div>
      </td>
    </tr>
  );
}

export function PairsTable({ agentId, pairs, filenames }: { agentId: number; pairs: PairRowData[]; filenames: string[] }) {
  if (pairs.length === 0) {
    return (
      <p className="rounded border border-dashed border-slate-300 bg-white p-8 text-center text-slate-600">
        No labeled pairs yet. Add one above, import a file, or save a query from the search inspector.
      </p>
    );
  }
  return (
    <table className="w-full rounded border border-slate-200 bg-white text-sm">
      <caption className="sr-only">Labeled pairs</caption>
      <thead className="bg-slate-100 text-left">
        <tr>
          <th className="px-3 py-2">Query</th>
          <th className="px-3 py-2">Expected document</th>
          <th className="px-3 py-2">Note</th>
          <th className="px-3 py-2">
            <span className="sr-only">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {pairs.map((p) => (
          <Row key={p.id} agentId={agentId} pair={p} filenames={filenames} />
        ))}
      </tbody>
    </table>
  );
}
