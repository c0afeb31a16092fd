"use client";

import { useActionState } from "react";
import { useFormStatus } from "react-dom";
import { triageQuestionAction, type TriageState } from "@/lib/actions/questions";
import type { QuestionStatus } from "./status-badge";

const OUTLINE = "rounded border border-slate-300 px-2 py-1 text-xs text-slate-800 hover:bg-slate-100 disabled:opacity-60";

/** Which one-click actions a question offers in each status (a labeled one only reopens: its pair stays as made). */
const OFFERED: Record<QuestionStatus, readonly ("label" | "unanswerable" | "gap" | "ignore" | "reopen")[]> = {
  open: ["label", "unanswerable", "gap", "ignore"],
  gap: ["label", "unanswerable", "ignore", "reopen"],
  ignored: ["label", "unanswerable", "gap", "reopen"],
  labeled: ["reopen"],
  unanswerable: ["reopen"],
};

const TEXT = { unanswerable: "Unanswerable", gap: "Gap", ignore: "Ignore", reopen: "Reopen" } as const;

/** The row's buttons: the one clicked says it is working, and none can be clicked twice meanwhile. */
function Buttons({ offered, question }: { offered: (typeof OFFERED)[QuestionStatus]; question: string }) {
  const { pending, data } = useFormStatus();
  const clicked = pending ? data?.get("action") : null;
  const named = (text: string) => (
    <>
      {text}
      <span className="sr-only"> “{question}”</span>
    </>
  );
  return (
    <>
      {offered.includes("label") && (
        <button
          type="submit"
          name="action"
          value="label"
          disabled={pending}
          className="rounded bg-blue-700 px-3 py-1 text-xs font-medium text-white hover:bg-blue-800 disabled:opacity-60"
        >
          {clicked === "label" ? "Labeling…" : named("Label")}
        </button>
      )}
      {(["unanswerable", "gap", "ignore", "reopen"] as const)
        .filter((a) => offered.includes(a))
        .map((a) => (
          <button key={a} type="submit" name="action" value={a} disabled={pending} className={OUTLINE}>
            {clicked === a ? "Saving…" : named(TEXT[a])}
          </button>
        ))}
    </>
  );
}

/**
 * Triage of one question. Success is said in the table's status line (`onDone`), which stays when the
 * row leaves a filtered list; a failure is said here, beside the select it is about.
 */
export function TriageActions(props: {
  agentId: number;
  groupId: number;
  question: string;
  status: QuestionStatus;
  documents: string[];
  onDone: (question: string, message: string) => void;
}) {
  const { agentId, groupId, question, status, documents, onDone } = props;
  const [state, action] = useActionState<TriageState, FormData>(async (prev, form) => {
    const next = await triageQuestionAction(agentId, groupId, prev, form);
    if (next.ok && next.message) onDone(question, next.message);
    return next;
  }, {});
  const offered = OFFERED[status];
  const statusId = `triage-${groupId}-status`;
  const error = state.ok ? null : (state.errors?.expected?.[0] ?? state.message);
  return (
    <form action={action} className="flex min-w-[11rem] flex-col gap-1.5" aria-describedby={statusId}>
      {offered.includes("label") && (
        // A select takes its defaultValue only when it mounts: the key shows what was submitted after a failure.
        <select
          key={state.values?.expected ?? ""}
          name="expected"
          defaultValue={state.values?.expected ?? ""}
          aria-label={`Document that answers “${question}”`}
          aria-invalid={state.errors?.expected ? true : undefined}
          aria-describedby={statusId}
          className="w-full max-w-[13rem] rounded border border-slate-300 px-1.5 py-1 text-xs"
        >
          <option value="">Choose a document</option>
          {documents.map((f) => (
            <option key={f} value={f}>
              {f}
            </option>
          ))}
        </select>
      )}
      <div className="flex flex-wrap gap-1.5">
        <Buttons offered={offered} question={question} />
      </div>
      <p id={statusId} aria-live="polite" className="text-xs text-red-700">
        {error}
      </p>
    </form>
  );
}
