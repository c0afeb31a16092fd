import { CHUNK_STRATEGIES, STRATEGY_LABELS, type ChunkStrategy } from "@/lib/core/chunking";

/** The chunking strategy field of the upload and re-index forms. */
export function StrategySelect(props: {
  name?: string;
  value?: ChunkStrategy;
  defaultValue?: ChunkStrategy;
  onChange?: (strategy: ChunkStrategy) => void;
  describedBy?: string;
}) {
  return (
    <label className="flex flex-col gap-1 text-sm font-medium">
      Split
      <select
        name={props.name}
        value={props.value}
        defaultValue={props.defaultValue}
        onChange={props.onChange && ((e) => props.onChange!(e.target.value as ChunkStrategy))}
        aria-describedby={props.describedBy}
        className="rounded border border-slate-300 px-2 py-1.5 font-normal"
      >
        {CHUNK_STRATEGIES.map((s) => (
          <option key={s} value={s}>
            {STRATEGY_LABELS[s]}
          </option>
        ))}
      </select>
    </label>
  );
}
