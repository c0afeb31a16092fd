"use client";

import { useActionState } from "react";
import { createAgentAction, type FormState } from "@/lib/actions/agents";
import { SubmitButton } from "@/components/ui/submit-button";

export function CreateAgentForm() {
  const [state, action] = useActionState<FormState, FormData>(createAgentAction, {});
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
          aria-describedby="agent-name-error"
          className="w-64 rounded border border-slate-300 px-3 py-2 text-sm"
        />
      </div>
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" name="tools" value="document_search" defaultChecked /> document_search tool
      </label>
      <SubmitButton pendingText="Creating…">Create agent</SubmitButton>
      <p id="agent-name-error" aria-live="polite" className="basis-full text-sm text-red-700">
        {state.errors?.name?.[0] ?? (state.errors ? state.message : null)}
      </p>
    </form>
  );
}
