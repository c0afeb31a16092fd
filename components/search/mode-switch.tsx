import { RETRIEVAL_MODES, type RetrievalMode } from "@/lib/validations/agent";

const LABEL: Record<RetrievalMode, string> = { vector: "Vector", keyword: "Keyword", hybrid: "Hybrid" };

/** A mode from the URL, or null when it names none. */
export function parseMode(value: string | null): RetrievalMode | null {
  return RETRIEVAL_MODES.find((m) => m === value) ?? null;
}

/** Which ranking the inspector shows: the agent's own mode unless another is picked. */
export function ModeSwitch(props: {
  value: RetrievalMode | undefined;
  agentMode: RetrievalMode | undefined;
  onChange: (mode: RetrievalMode) => void;
}) {
  return (
    <fieldset className="flex flex-col gap-1 text-sm md:col-span-2" aria-describedby="mode-note">
      <legend className="font-medium">Rank by</legend>
      <div className="flex flex-wrap gap-4">
        {RETRIEVAL_MODES.map((m) => (
          <label key={m} className="flex items-center gap-1.5">
            <input type="radio" name="mode" value={m} checked={props.value === m} onChange={() => props.onChange(m)} />
            {LABEL[m]}
          </label>
        ))}
      </div>
      {props.value && (
        <p id="mode-note" className="text-xs text-slate-600">
          Ranks this query as {props.value} without changing the agent&apos;s setting
          {props.agentMode ? ` (the agent uses ${props.agentMode}).` : "."}
        </p>
      )}
    </fieldset>
  );
}
