"use client";

import { useActionState } from "react";
import { updateAgentAction, type AgentFormState } from "@/lib/actions/agents";
import { SubmitButton } from "@/components/ui/submit-button";
import type { Tool } from "@/lib/validations/agent";

export function AgentSettingsForm({ agentId, name, tools }: { agentId: number; name: string; tools: Tool[] }) {
  const [state, action] = useActionState<AgentFormState, FormData>(updateAgentAction.bind(null, agentId), {});
  // After a failure the form shows what was submitted; after a save, the saved settings.
  const values = state.values;
  const checked: readonly string[] = values?.tools ?? tools;
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
      <SubmitButton pendingText="Saving…">Save settings</SubmitButton>
      <p id="settings-status" aria-live="polite" className={`text-sm ${state.ok ? "text-green-800" : "text-red-700"}`}>
        {state.errors?.name?.[0] ?? state.message}
      </p>
    </form>
  );
}
