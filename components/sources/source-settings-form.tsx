"use client";

import { useActionState } from "react";
import { SubmitButton } from "@/components/ui/submit-button";
import { updateSourceAction, type SourceSettingsState } from "@/lib/actions/sources";
import type { OnRemoved } from "@/lib/db/sources";
import { SettingsFields } from "./settings-fields";

type State = SourceSettingsState & { round?: number };

/**
 * The source's settings, as the add form asks them. Ids carry the source's id and the labels its
 * name (for screen readers), so several sources on a page keep their fields apart.
 */
export function SourceSettingsForm(props: {
  agentId: number;
  sourceId: number;
  name: string;
  onRemoved: OnRemoved;
  intervalMinutes: number | null;
  crossHost: boolean;
  metadata?: Record<string, unknown>;
}) {
  const { agentId, sourceId, name, onRemoved, intervalMinutes, crossHost } = props;
  const metadata = props.metadata && Object.keys(props.metadata).length > 0 ? JSON.stringify(props.metadata) : "";
  const [state, action] = useActionState<State, FormData>(
    async (prev, form) => ({ ...(await updateSourceAction(agentId, sourceId, prev, form)), round: (prev.round ?? 0) + 1 }),
    {},
  );
  const id = `source-${sourceId}-settings`;
  const statusId = `${id}-status`;
  // As submitted after a failure; otherwise the source's saved values.
  const values = state.values ?? {
    on_removed: onRemoved,
    interval_minutes: intervalMinutes === null ? "" : String(intervalMinutes),
    cross_host: crossHost ? "on" : "",
    metadata,
  };
  const invalid = (field: string) => (state.errors?.[field] ? true : undefined);
  // The fields' own errors are said after the form's, in the one live region the fields point to.
  const said = [state.message, ...Object.values(state.errors ?? {}).flat()].filter(Boolean).join(" ");
  return (
    <details className="text-sm">
      <summary className="cursor-pointer text-slate-700">Change settings</summary>
      {/* noValidate: an interval under 5 is said by the action, in the live region, not by a browser bubble. */}
      <form action={action} noValidate className="mt-2 space-y-2">
        {/* Remounted after each submission and when the saved values change: a select takes its defaultValue only when it mounts. */}
        <SettingsFields
          key={`${state.round ?? 0}:${onRemoved}:${intervalMinutes}:${crossHost}:${metadata}`}
          id={id}
          values={values}
          invalid={invalid}
          statusId={statusId}
          forName={name}
        />
        <div className="flex flex-wrap items-center gap-3">
          <SubmitButton
            pendingText="Saving…"
            className="rounded border border-slate-300 px-3 py-2 text-sm text-slate-800 hover:bg-slate-100 disabled:opacity-60"
          >
            Save settings
          </SubmitButton>
          <p id={statusId} aria-live="polite" className={`text-sm ${state.ok ? "text-green-800" : "text-red-700"}`}>
            {said}
          </p>
        </div>
      </form>
    </details>
  );
}
