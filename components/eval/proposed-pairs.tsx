"use client";

import Link from "next/link";
import { startTransition, useActionState } from "react";
import { acceptAllAction, acceptProposalAction, rejectProposalAction, type ProposalState } from "@/lib/actions/generate";
import type { FormState } from "@/lib/actions/form-state";
import { SubmitButton } from "@/components/ui/submit-button";
import { inspectorHref } from "./inspector-link";

export interface ProposalRowData {
  id: number;
  query: string;
  expected: string;
  /** Null when no indexed document has the expected filename any more. */
  documentId: number | null;
}

const input = "w-full rounded border border-slate-300 px-2 py-1 text-sm";

function RejectButton({ agentId, pair }: { agentId: number; pair: ProposalRowData }) {
  const [state, reject, pending] = useActionState<FormState, void>(() => rejectProposalAction(agentId, pair.id), {});
  return (
    <>
      <button
        type="button"
        disabled={pending}
        onClick={() => startTransition(reject)}
        aria-label={`Reject “${pair.query}”`}
        className="rounded border border-red-300 px-3 py-2 text-sm text-red-700 hover:bg-red-50 disabled:opacity-50"
      >
        {pending ? "Rejecting…" : "Reject"}
      </button>
      {state.message && (
        <p role="alert" className="basis-full text-xs text-red-700">
          {state.message}
        </p>
      )}
    </>
  );
}

/** One proposal: its query and document can be edited before it is accepted; rejecting deletes it. */
function ProposalRow({ agentId, pair, filenames }: { agentId: number; pair: ProposalRowData; filenames: string[] }) {
  const [state, action] = useActionState<ProposalState, FormData>(acceptProposalAction.bind(null, agentId, pair.id), {});
  const formId = `proposal-${pair.id}`;
  const status = `${formId}-status`;
  const values = state.values ?? { query: pair.query, expected: pair.expected };
  const options = filenames.includes(pair.expected) ? filenames : [pair.expected, ...filenames];
  return (
    <tr className="border-t border-slate-200 align-top">
      <td className="px-3 py-2">
        <input
          form={formId}
          name="query"
          defaultValue={values.query}
          required
          aria-label="Question"
          aria-invalid={state.errors?.query ? true : undefined}
          aria-describedby={status}
          className={input}
        />
      </td>
      <td className="px-3 py-2">
        <select
          key={values.expected}
          form={formId}
          name="expected"
          defaultValue={values.expected}
          aria-label={`Document expected to answer “${pair.query}”`}
          aria-invalid={state.errors?.expected ? true : undefined}
          aria-describedby={status}
          className={input}
        >
          {options.map((f) => (
            <option key={f} value={f}>
              {f}
            </option>
          ))}
        </select>
      </td>
      <td className="px-3 py-2">
        <div className="flex flex-wrap items-center gap-2">
          <form id={formId} action={action} aria-label={`Accept “${pair.query}”`}>
            <SubmitButton pendingText="Accepting…">Accept</SubmitButton>
          </form>
          <RejectButton agentId={agentId} pair={pair} />
          <Link
            href={inspectorHref(agentId, pair.query, 3, pair.documentId)}
            className="text-sm text-blue-700 underline"
            aria-label={`Open “${pair.query}” in the inspector`}
          >
            Inspect
          </Link>
        </div>
        <p id={status} aria-live="polite" className="mt-1 text-xs text-red-700">
          {state.ok ? null : (state.errors?.query?.[0] ?? state.errors?.expected?.[0] ?? state.message)}
        </p>
      </td>
    </tr>
  );
}

/** The review list of generated questions: accept (as is or edited) or reject each, or accept all listed. */
export function ProposedPairs({ agentId, proposals, filenames }: { agentId: number; proposals: ProposalRowData[]; filenames: string[] }) {
  const [state, acceptAll] = useActionState<FormState, FormData>(acceptAllAction.bind(null, agentId), {});
  return (
    <section aria-labelledby="proposed-heading" className="space-y-2">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h2 id="proposed-heading" className="text-lg font-semibold">
          Proposed questions ({proposals.length})
        </h2>
        {proposals.length > 0 && (
          <form action={acceptAll} aria-describedby="accept-all-status">
            {proposals.map((p) => (
              <input key={p.id} type="hidden" name="ids" value={p.id} />
            ))}
            <SubmitButton pendingText="Accepting…">Accept all {proposals.length}</SubmitButton>
          </form>
        )}
      </div>
      <p className="max-w-3xl text-sm text-slate-600">
        Edit a question or its document before accepting it if it needs it. Accepted questions join the labeled pairs below with the source
        &ldquo;generated&rdquo;; rejected ones are deleted.
      </p>
      <p id="accept-all-status" aria-live="polite" className="text-sm text-green-800">
        {state.message}
      </p>
      {proposals.length === 0 ? (
        <p className="rounded border border-dashed border-slate-300 bg-white p-6 text-center text-slate-600">
          No proposed questions. Generate some above; they wait here until you accept or reject them.
        </p>
      ) : (
        <div className="overflow-x-auto rounded border border-slate-200 bg-white">
          <table className="w-full text-left text-sm">
            <caption className="sr-only">Proposed questions, not counted in runs until accepted</caption>
            <thead className="bg-slate-50 text-slate-700">
              <tr>
                <th scope="col" className="px-3 py-2 font-medium">
                  Question
                </th>
                <th scope="col" className="px-3 py-2 font-medium">
                  Expected document
                </th>
                <th scope="col" className="px-3 py-2 font-medium">
                  <span className="sr-only">Review</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {proposals.map((p) => (
                <ProposalRow key={p.id} agentId={agentId} pair={p} filenames={filenames} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
