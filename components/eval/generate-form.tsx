"use client";

import { useActionState, useState } from "react";
import { generateAction, type GenerateState } from "@/lib/actions/generate";
import { SubmitButton } from "@/components/ui/submit-button";
import { DEFAULT_PER_DOCUMENT, MAX_GENERATE_DOCUMENTS, MAX_PER_DOCUMENT } from "@/lib/validations/generate";

/** "Generate questions": for all the agent's documents or the ones ticked; each proposal waits for review below. */
export function GenerateForm({
  agentId,
  documents,
  generator,
}: {
  agentId: number;
  documents: { id: number; filename: string }[];
  generator: string;
}) {
  const [state, action] = useActionState<GenerateState, FormData>(generateAction.bind(null, agentId), {});
  const values = state.values;
  const error = (field: string) => state.errors?.[field]?.[0];
  // Mirrors the radio, which the form's reset sets back to its default after each submit, to show the list.
  const [scope, setScope] = useState(values?.scope ?? "all");
  const [shown, setShown] = useState(state);
  if (shown !== state) {
    setShown(state);
    setScope(values?.scope ?? "all");
  }
  const ticked = new Set(values?.documents ?? []);
  const status = "generate-status";
  return (
    <form
      action={action}
      className="space-y-3 rounded border border-slate-200 bg-white p-4"
      aria-labelledby="generate-heading"
      aria-describedby={status}
    >
      <h2 id="generate-heading" className="font-semibold">
        Generate questions
      </h2>
      <p className="max-w-3xl text-sm text-slate-600">
        {generator === "offline"
          ? "No chat model is set (OPENAI_CHAT_MODEL), so questions are read from each document's structure: its FAQ-style questions, its headings turned into questions, and the first sentence of a section."
          : `The chat model ${generator} writes questions from each document's first chunks.`}{" "}
        Generated questions are proposals: they count in runs only once accepted.
      </p>
      <div className="flex flex-wrap items-start gap-6">
        <fieldset className="space-y-1" aria-describedby={status}>
          <legend className="text-sm font-medium">Documents</legend>
          <label className="flex items-center gap-2 text-sm">
            <input type="radio" name="scope" value="all" defaultChecked={scope === "all"} onChange={() => setScope("all")} />
            All {documents.length} indexed documents
          </label>
          <label className="flex items-center gap-2 text-sm">
            <input type="radio" name="scope" value="chosen" defaultChecked={scope === "chosen"} onChange={() => setScope("chosen")} />
            Chosen documents (at most {MAX_GENERATE_DOCUMENTS})
          </label>
          {scope === "chosen" && (
            <div
              className="max-h-48 overflow-y-auto rounded border border-slate-200 p-2"
              role="group"
              aria-label="Documents to generate questions for"
            >
              {documents.map((d) => (
                <label key={d.id} className="flex items-center gap-2 text-sm">
                  <input
                    type="checkbox"
                    name="documents"
                    value={d.id}
                    defaultChecked={ticked.has(String(d.id))}
                    aria-invalid={error("documents") ? true : undefined}
                  />
                  {d.filename}
                </label>
              ))}
            </div>
          )}
        </fieldset>
        <div className="flex flex-col gap-1">
          <label htmlFor="generate-per-document" className="text-sm font-medium">
            Questions per document
          </label>
          <input
            id="generate-per-document"
            name="per_document"
            type="number"
            min={1}
            max={MAX_PER_DOCUMENT}
            required
            defaultValue={values?.per_document ?? DEFAULT_PER_DOCUMENT}
            aria-invalid={error("per_document") ? true : undefined}
            aria-describedby={status}
            className="w-24 rounded border border-slate-300 px-2 py-1.5 text-sm"
          />
        </div>
        <div className="self-end">
          <SubmitButton pendingText="Generating…">Generate questions</SubmitButton>
        </div>
      </div>
      <div id={status} aria-live="polite" className="text-sm">
        {state.ok ? (
          <p className="text-green-800">{state.message}</p>
        ) : (
          <p className="text-red-700">{error("documents") ?? error("per_document") ?? state.message}</p>
        )}
        {state.report && state.report.per_document.some((d) => d.proposed === 0) && (
          <p className="text-slate-600">
            Nothing new for:{" "}
            {state.report.per_document
              .filter((d) => d.proposed === 0)
              .map((d) => d.filename)
              .join(", ")}
            .
          </p>
        )}
      </div>
    </form>
  );
}
