"use client";

import Link from "next/link";
import { useActionState } from "react";
import { askFromInspectorAction, type AskState } from "@/lib/actions/ask";
import type { AskResult } from "@/lib/ask/ask";
import { SubmitButton } from "@/components/ui/submit-button";
import { TableContext } from "@/components/ui/table-context";
import { PageLink } from "@/components/ui/page-link";

export interface AskPanelProps {
  agentId: number;
  /** The question as typed in the inspector, and its top_k: what Ask sends. */
  question: string;
  topK: number;
  /** The inspector's metadata filter as JSON (null: none): the ask retrieves under it too. */
  filter?: string | null;
  /** Whether the inspector shows a miss diagnosis for an expected document. */
  hasExpected: boolean;
  onShowDiagnosis: () => void;
}

const distance = (score: number) => score.toFixed(4);

/** Which step refused, in the words of the pipeline. */
function refusal(result: AskResult): string {
  if (result.reason === "no_match") return "Refused at retrieval (no_match): no chunk is within the no-match cut.";
  const n = result.retrieved.length;
  return `Refused at grading (not_relevant): ${result.graded_by} found none of the ${n} retrieved chunk${n === 1 ? "" : "s"} relevant.`;
}

function Answer({ agentId, result }: { agentId: number; result: AskResult }) {
  return (
    <div className="space-y-2">
      <p className="whitespace-pre-wrap rounded border border-green-200 bg-green-50 p-3 text-sm">{result.answer}</p>
      <p className="text-xs text-slate-600">
        {result.answer_kind === "extractive" ? "Quoted from the chunks (no chat model configured)" : `Written by ${result.graded_by}`}
      </p>
      <div>
        <h3 className="text-xs font-semibold text-slate-700">Citations</h3>
        <ul aria-label="Citations" className="mt-1 space-y-0.5 text-sm">
          {result.citations.map((c) => (
            <li key={`${c.document_id}-${c.chunk_index}`}>
              <Link href={`/agents/${agentId}/documents/${c.document_id}`} className="text-blue-700 underline">
                {c.filename} #{c.chunk_index}
              </Link>{" "}
              {c.pages && (
                <>
                  <PageLink agentId={agentId} documentId={c.document_id} pages={c.pages} />{" "}
                </>
              )}
              <span className="font-mono text-xs text-slate-600">distance {distance(c.score)}</span>
              <TableContext context={c.context} />
            </li>
          ))}
        </ul>
      </div>
    </div>
  );
}

function Refusal({ result, hasExpected, onShowDiagnosis }: { result: AskResult } & Pick<AskPanelProps, "hasExpected" | "onShowDiagnosis">) {
  return (
    <div className="space-y-2 rounded border border-amber-300 bg-amber-50 p-3 text-sm">
      <p className="font-medium">{refusal(result)}</p>
      {hasExpected ? (
        <button type="button" onClick={onShowDiagnosis} className="text-blue-700 underline">
          Was the right chunk even retrieved? See the diagnosis
        </button>
      ) : (
        <p className="text-slate-700">To see whether the right chunk was even retrieved, pick the expected document above.</p>
      )}
    </div>
  );
}

function GradedChunks({ result }: { result: AskResult }) {
  if (result.retrieved.length === 0) return null;
  const byCut = result.graded_by === "the no-match cut";
  return (
    <table aria-label="Graded chunks" className="w-full rounded border border-slate-200 bg-white text-sm">
      <caption className="p-2 text-left text-xs text-slate-600">
        {byCut
          ? "Graded by the no-match cut: with no chat model, every retrieved chunk counts as relevant."
          : `Graded by ${result.graded_by}.`}
      </caption>
      <thead className="bg-slate-100 text-left">
        <tr>
          <th scope="col" className="px-3 py-1.5">
            Chunk
          </th>
          <th scope="col" className="px-3 py-1.5">
            Distance
          </th>
          <th scope="col" className="px-3 py-1.5">
            Grade
          </th>
        </tr>
      </thead>
      <tbody>
        {result.retrieved.map((r) => (
          <tr key={`${r.document_id}-${r.chunk_index}`} className="border-t border-slate-200">
            <td className="px-3 py-1.5">
              {r.filename} #{r.chunk_index}
            </td>
            <td className="px-3 py-1.5 font-mono">{distance(r.score)}</td>
            <td className="px-3 py-1.5">
              <span
                className={`rounded px-1.5 py-0.5 text-xs ${r.relevant ? "bg-green-100 text-green-900" : "bg-slate-200 text-slate-700"}`}
              >
                {r.relevant ? "relevant" : "not relevant"}
              </span>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** What the agent would answer to the inspector's query: run on demand, since an ask may call a chat model. */
export function AskPanel(props: AskPanelProps) {
  const [state, action] = useActionState<AskState & { topK?: number }, FormData>(async (_prev, form) => {
    const topK = Number(form.get("top_k"));
    const filter = String(form.get("filter") ?? "") || undefined;
    return { ...(await askFromInspectorAction(props.agentId, String(form.get("question") ?? ""), topK, filter)), topK };
  }, {});
  const result = state.result;
  const changed = result && (result.question !== props.question || state.topK !== props.topK);
  return (
    <section aria-labelledby="ask-heading" className="space-y-3 rounded border border-slate-200 bg-white p-4">
      <form action={action} aria-describedby="ask-status" className="flex flex-wrap items-center justify-between gap-3">
        <div>
          <h2 id="ask-heading" className="font-semibold">
            Ask: what the agent would answer
          </h2>
          <p className="text-xs text-slate-600">
            Runs the agent&apos;s ask for this query at top_k = {props.topK}: retrieve, grade, answer.
          </p>
        </div>
        <input type="hidden" name="question" value={props.question} />
        <input type="hidden" name="top_k" value={props.topK} />
        <input type="hidden" name="filter" value={props.filter ?? ""} />
        <SubmitButton pendingText="Asking…">Ask</SubmitButton>
      </form>
      <p id="ask-status" aria-live="polite" className="text-sm text-red-700 empty:hidden">
        {state.message}
      </p>
      {result && (
        <div className="space-y-3">
          <p className="text-xs text-slate-600">
            Asked <q>{result.question}</q> at top_k = {state.topK}
            {changed && ". The query or top_k has changed since: Ask again for the current one."}
          </p>
          {result.refused ? (
            <Refusal result={result} hasExpected={props.hasExpected} onShowDiagnosis={props.onShowDiagnosis} />
          ) : (
            <Answer agentId={props.agentId} result={result} />
          )}
          <GradedChunks result={result} />
        </div>
      )}
    </section>
  );
}
