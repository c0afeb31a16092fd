"use client";

import { useActionState } from "react";
import { createAgentAction, type AgentFormState } from "@/lib/actions/agents";
import { SubmitButton } from "@/components/ui/submit-button";

export function CreateAgentForm() {
  const [state, action] = useActionState<AgentFormState, FormData>(createAgentAction, {});
  // After a failure the form shows what was submitted; success leaves this page.
  const values = state.values;
  const error = state.errors?.name?.[0] ?? state.message;
  return (
    <form action={action} className="flex flex-wrap items-end gap-4 rounded border border-slate-200 bg-white p-4">
      <div className="flex flex-col gap-1">
        <label htmlFor="agent-name" className="text-sm font-medium">
          New agent name
        </label>
        <input
          id="agent-name"
          name="name"
          required
          maxLength={80}
          defaultValue={values?.name}
          aria-invalid={state.errors?.name ? true : undefined}
          aria-describedby="agent-name-error"
          className="w-64 rounded border border-slate-300 px-3 py-2 text-sm"
        />
      </div>
      <label className="flex items-center gap-2 text-sm">
        <input
          type="checkbox"
          name="tools"
          value="document_search"
          defaultChecked={values ? values.tools.includes("document_search") : true}
        />{" "}
        document_search tool
      </label>
      <SubmitButton pendingText="Creating…">Create agent</SubmitButton>
      <p id="agent-name-error" aria-live="polite" className="basis-full text-sm text-red-700">
        {error}
      </p>
    </form>
  );
}
