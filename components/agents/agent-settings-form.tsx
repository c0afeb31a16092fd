"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useActionState, useEffect, useState } from "react";
import { updateAgentAction, type AgentSettingsFormState } from "@/lib/actions/agents";
import { queryKeys } from "@/lib/client/query-keys";
import { SubmitButton } from "@/components/ui/submit-button";
import { RETRIEVAL_MODES, type RetrievalMode, type Tool } from "@/lib/validations/agent";

const MODE_NOTE: Record<RetrievalMode, string> = {
  vector: "Closest meaning: chunks ranked by the embedding's distance to the query.",
  keyword: "Shared words: chunks ranked by bm25 over their stemmed words, so exact codes and names match.",
  hybrid: "Both: the vector and keyword rankings fused by reciprocal rank (k = 60).",
};

/** `logQuestions`: the agent's setting; without it the form leaves the setting out (and unchanged). */
export function AgentSettingsForm(props: {
  agentId: number;
  name: string;
  tools: Tool[];
  retrievalMode: RetrievalMode;
  logQuestions?: boolean;
}) {
  const { agentId, name, tools, retrievalMode, logQuestions } = props;
  const [state, action] = useActionState<AgentSettingsFormState, FormData>(updateAgentAction.bind(null, agentId), {});
  const [mode, setMode] = useState<RetrievalMode>(retrievalMode);
  const client = useQueryClient();
  // The inspector's cached view of this agent ranks in its old mode until refetched.
  useEffect(() => {
    if (state.ok) void client.invalidateQueries({ queryKey: queryKeys.agent(agentId) });
  }, [state, client, agentId]);
  // After a failure the form shows what was submitted; after a save, the saved settings.
  const values = state.values;
  const checked: readonly string[] = values?.tools ?? tools;
  // The form is reset to its defaults after each save, and a select reads its default only when mounted.
  const shownMode = values?.retrieval_mode ?? retrievalMode;
  return (
    <form action={action} className="space-y-4 rounded border border-slate-200 bg-white p-4" aria-describedby="settings-status">
      <h2 className="font-semibold">Settings</h2>
      <label className="flex flex-col gap-1 text-sm font-medium">
        Name
        <input
          name="name"
          defaultValue={values?.name ?? name}
          required
          maxLength={80}
          aria-invalid={state.errors?.name ? true : undefined}
          aria-describedby="settings-status"
          className="w-80 rounded border border-slate-300 px-3 py-2 font-normal"
        />
      </label>
      <fieldset className="space-y-1">
        <legend className="text-sm font-medium">Tools</legend>
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" name="tools" value="document_search" defaultChecked={checked.includes("document_search")} />
          document_search: lets this agent (and the inspector) search its documents
        </label>
      </fieldset>
      {logQuestions !== undefined && (
        <div className="space-y-1 text-sm">
          <input type="hidden" name="log_questions_shown" value="1" />
          {/* Keyed by the value shown: a checkbox reads its default only when mounted. */}
          <label className="flex items-center gap-2 font-medium">
            <input
              key={String(values?.log_questions ?? logQuestions)}
              type="checkbox"
              name="log_questions"
              defaultChecked={values?.log_questions ?? logQuestions}
              aria-describedby="log-questions-note"
            />
            Log the agent&apos;s questions
          </label>
          <p id="log-questions-note" className="text-slate-600">
            Keeps the text of the agent&apos;s own searches and asks for the Questions tab (labeled pairs, gaps, replay); off, its calls are
            still logged, without their text.
          </p>
        </div>
      )}
      <div className="flex flex-col gap-1 text-sm">
        <label htmlFor="retrieval-mode" className="font-medium">
          Retrieval mode
        </label>
        <select
          key={shownMode}
          id="retrieval-mode"
          name="retrieval_mode"
          defaultValue={shownMode}
          onChange={(e) => setMode(e.target.value as RetrievalMode)}
          aria-invalid={state.errors?.retrieval_mode ? true : undefined}
          aria-describedby="retrieval-mode-note settings-status"
          className="w-80 rounded border border-slate-300 px-2 py-1.5"
        >
          {RETRIEVAL_MODES.map((m) => (
            <option key={m} value={m}>
              {m}
            </option>
          ))}
        </select>
        <p id="retrieval-mode-note" className="text-slate-600">
          {MODE_NOTE[mode]}
        </p>
      </div>
      <SubmitButton pendingText="Saving…">Save settings</SubmitButton>
      <p id="settings-status" aria-live="polite" className={`text-sm ${state.ok ? "text-green-800" : "text-red-700"}`}>
        {state.errors?.name?.[0] ?? state.errors?.retrieval_mode?.[0] ?? state.message}
      </p>
    </form>
  );
}
