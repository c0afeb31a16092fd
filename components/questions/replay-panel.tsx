"use client";

import { useActionState } from "react";
import { replayQuestionsAction, type ReplayState } from "@/lib/actions/questions";
import type { ReplayedQuestion, ReplaySummary } from "@/lib/questions/replay";
import { DataTable, type Column } from "@/components/ui/data-table";
import { FileName } from "@/components/ui/file-name";
import { SubmitButton } from "@/components/ui/submit-button";
import { plural } from "@/lib/format/plural";

/** The replay's outcome in one sentence: what changed for the questions users actually asked. */
export function summaryText(s: ReplaySummary): string {
  if (s.replayed === 0) return "Nothing to replay: the log holds no question of this agent with what it returned.";
  const text =
    `${s.first_document_changed} of ${plural(s.replayed, "question")} changed their first document; ` +
    `${s.newly_refused} newly refused; ${s.newly_answered} newly answered.`;
  const other =
    s.other_model > 0
      ? ` ${plural(s.other_model, "question was", "questions were")} asked with another embedding model: their distances are not compared.`
      : "";
  return text + other;
}

/** The first document of one side, or how it ended when it returned none. */
function First({ side }: { side: ReplayedQuestion["then"] }) {
  if (!side.first) return <span className="text-slate-600">{side.ending}</span>;
  return (
    <>
      <FileName name={side.first.filename} />{" "}
      <span className="whitespace-nowrap font-mono text-xs text-slate-500">{side.first.score.toFixed(4)}</span>
      {side.ending !== "answered" && <span className="ml-1 text-xs text-slate-600">({side.ending})</span>}
    </>
  );
}

const names = (list: string[]) =>
  list.length === 0 ? (
    <span className="text-slate-500">—</span>
  ) : (
    list.map((f, i) => (
      <span key={f}>
        {i > 0 && ", "}
        <FileName name={f} />
      </span>
    ))
  );

/** Signed, so a move is read at a glance; a change that rounds to nothing shows as none. */
function change(d: number | null): string {
  if (d === null) return "—";
  const size = Math.abs(d).toFixed(4);
  return Number(size) === 0 ? size : `${d > 0 ? "+" : "−"}${size}`;
}

const COLUMNS: Column<ReplayedQuestion>[] = [
  { id: "question", header: "Question", className: "min-w-[12rem] [overflow-wrap:anywhere]", cell: (q) => q.question },
  { id: "then", header: "First then", cell: (q) => <First side={q.then} /> },
  { id: "now", header: "First now", cell: (q) => <First side={q.now} /> },
  { id: "gained", header: "Gained", cell: (q) => names(q.gained) },
  { id: "lost", header: "Lost", cell: (q) => names(q.lost) },
  {
    id: "change",
    header: "Distance change",
    cell: (q) => <span className="whitespace-nowrap font-mono">{change(q.first_distance_change)}</span>,
  },
];

/** "Replay the last N questions": each asked again now, with the agent's current documents, mode and cut. */
export function ReplayPanel({
  agentId,
  changed,
  drafts = [],
  draft = null,
}: {
  agentId: number;
  changed: { at: string; what: "documents" | "settings" } | null;
  /** The agent's drafts: questions can be replayed as one would leave the agent. */
  drafts?: { id: number; name: string }[];
  draft?: number | null;
}) {
  const [state, action] = useActionState<ReplayState, FormData>(replayQuestionsAction.bind(null, agentId), {});
  const result = state.ok ? state.result : undefined;
  return (
    <section aria-labelledby="replay-heading" className="space-y-3 rounded border border-slate-200 bg-white p-4">
      <h2 id="replay-heading" className="font-semibold">
        Replay
      </h2>
      <p className="max-w-3xl text-sm text-slate-600">
        Did a change help the questions users actually asked? Replaying asks the agent&apos;s latest questions again now, each with the
        top_k it was asked with, in the agent&apos;s current mode and cut, and compares what comes back with what it returned then. Nothing
        is logged.
      </p>
      {changed && !result && (
        <p role="note" className="max-w-3xl rounded border border-blue-200 bg-blue-50 px-3 py-2 text-sm text-blue-900">
          The agent&apos;s {changed.what === "documents" ? "documents" : "settings (mode, cut or tools)"} changed after its latest question
          ({changed.at.slice(0, 16).replace("T", " ")} UTC): replay to see whether the change helped.
        </p>
      )}
      <form action={action} className="flex flex-wrap items-center gap-3" aria-describedby="replay-status">
        <label className="flex items-center gap-2 text-sm font-medium">
          Replay the last{" "}
          <input
            name="limit"
            type="number"
            min={1}
            max={1000}
            required
            defaultValue={state.values?.limit ?? "100"}
            aria-invalid={state.errors?.limit ? true : undefined}
            aria-describedby="replay-status"
            className="w-24 rounded border border-slate-300 px-2 py-1.5 font-normal"
          />{" "}
          questions
        </label>
        {drafts.length > 0 && (
          <label className="flex items-center gap-2 text-sm font-medium">
            as
            <select name="draft" defaultValue={draft ?? ""} className="rounded border border-slate-300 px-2 py-1.5 font-normal">
              <option value="">the agent serves them</option>
              {drafts.map((d) => (
                <option key={d.id} value={d.id}>
                  draft {d.id} would: {d.name}
                </option>
              ))}
            </select>
          </label>
        )}
        <SubmitButton pendingText="Replaying…">Replay</SubmitButton>
      </form>
      <div id="replay-status" aria-live="polite" className="space-y-2 text-sm">
        {!state.ok && state.message && <p className="text-red-700">{state.errors?.limit?.[0] ?? state.message}</p>}
        {result && <p className="font-medium">{summaryText(result.summary)}</p>}
      </div>
      {result && result.changed.length > 0 && (
        <>
          <p className="text-xs text-slate-500">Distance: lower is closer; a negative change means the first result is closer now.</p>
          <DataTable
            caption="Questions whose results changed"
            captionClassName="text-left text-sm font-medium pb-1"
            columns={COLUMNS}
            rows={result.changed}
            rowKey={(q) => q.call_id}
            stacked
          />
        </>
      )}
    </section>
  );
}
