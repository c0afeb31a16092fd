import Link from "next/link";
import type { ToolCall } from "@/lib/db/tool-calls";
import { inspectorHref } from "@/components/eval/inspector-link";

const REASONS: Record<string, string> = {
  no_match: "no chunk within the no-match cut",
  not_relevant: "no retrieved chunk was relevant",
};

/** The agent's own asks that ended in a refusal: questions the documents may not answer yet. */
export function RecentRefusals({ agentId, refusals }: { agentId: number; refusals: ToolCall[] }) {
  if (refusals.length === 0) return null;
  return (
    <section aria-labelledby="refusals-heading" className="space-y-2">
      <h2 id="refusals-heading" className="font-semibold">
        Questions the agent refused
      </h2>
      <ul className="divide-y divide-slate-200 rounded border border-slate-200 bg-white text-sm">
        {refusals.map((c) => {
          const input = JSON.parse(c.input) as { question: string; top_k: number };
          const reason = (c.outcome ?? "").replace(/^refused: /, "");
          return (
            <li key={c.id} className="flex flex-wrap items-baseline gap-x-4 gap-y-1 px-3 py-2">
              <span className="min-w-0 flex-1 font-medium">{input.question}</span>
              <span className="text-slate-600">
                {reason} ({REASONS[reason] ?? "refused"}) ·{" "}
                <time dateTime={c.created_at}>{new Date(c.created_at).toLocaleString("en-GB")}</time>
              </span>
              <Link href={inspectorHref(agentId, input.question, input.top_k, null)} className="text-blue-700 underline">
                Inspect<span className="sr-only"> “{input.question}”</span>
              </Link>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
