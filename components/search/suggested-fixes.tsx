"use client";

import Link from "next/link";
import { useState } from "react";
import { pairForFixesAction } from "@/lib/actions/inspector";
import { apiFetch, postJson } from "@/lib/client/fetch";
import type { PairFixes, SuggestedFix } from "@/lib/evaluation/fixes";

const pct = (x: number | null) => (x === null ? "—" : `${(x * 100).toFixed(1)}%`);
const rankText = (r: number | null) => (r === null ? "not found" : String(r));

/**
 * Beside the diagnosis of a missed expected document: candidate changes, each scored by the
 * impact of a draft that holds it alone (whether it rescues this question, and which labeled
 * pairs and logged questions it would break), and staged in a new draft in one click.
 */
export function SuggestedFixes({ agentId, query, documentId, topK }: { agentId: number; query: string; documentId: number; topK: number }) {
  const [state, setState] = useState<{ loading?: boolean; error?: string; data?: PairFixes; note?: string }>({});
  const [staged, setStaged] = useState<Record<number, { id?: number; error?: string }>>({});
  const k = Math.min(topK, 20);

  const suggest = async () => {
    setState({ loading: true });
    setStaged({});
    const pair = await pairForFixesAction(agentId, query, documentId);
    if (!pair.ok || pair.pairId === undefined) {
      setState({ error: pair.message ?? "The question could not be saved as a labeled pair." });
      return;
    }
    try {
      const data = await apiFetch<PairFixes>(`/api/agents/${agentId}/pairs/${pair.pairId}/fixes?k=${k}`);
      setState({ data, note: pair.message });
    } catch (err) {
      setState({ error: err instanceof Error ? err.message : String(err) });
    }
  };

  const stage = async (i: number, fix: SuggestedFix) => {
    setStaged((s) => ({ ...s, [i]: {} }));
    try {
      const draft = await postJson<{ id: number }>(`/api/agents/${agentId}/drafts`, { name: fix.title, fix: fix.change });
      setStaged((s) => ({ ...s, [i]: { id: draft.id } }));
    } catch (err) {
      setStaged((s) => ({ ...s, [i]: { error: err instanceof Error ? err.message : String(err) } }));
    }
  };

  const data = state.data;
  return (
    <section aria-label="Suggested fixes" className="space-y-3 rounded border border-slate-200 bg-white p-3 text-sm">
      <div className="flex flex-wrap items-center gap-3">
        <button
          type="button"
          onClick={suggest}
          disabled={state.loading}
          className="rounded border border-slate-300 px-3 py-1.5 hover:bg-slate-50 disabled:opacity-50"
        >
          {state.loading ? "Scoring fixes…" : "Suggest fixes"}
        </button>
        <span className="text-slate-600">
          Each candidate is staged in a draft of its own and scored on this agent&apos;s labeled pairs and latest logged questions at k ={" "}
          {k}; nothing is served until you publish a draft.
        </span>
      </div>
      {state.error && (
        <p role="alert" className="text-red-700">
          {state.error}
        </p>
      )}
      {state.note && <p className="text-slate-600">{state.note}</p>}
      {data && !data.missed && (
        <p role="status">
          The agent already finds {data.expected} at rank {data.rank} for this question (k = {data.k}): there is nothing to fix.
        </p>
      )}
      {data && data.missed && data.fixes.length === 0 && <p role="status">No candidate change applies to this question.</p>}
      {data && data.missed && data.fixes.length > 0 && (
        <ol className="space-y-2" aria-label="Fixes, best first">
          {data.fixes.map((f, i) => {
            const breaks = f.scored ? f.regressions.pairs.length + f.regressions.questions.length : 0;
            return (
              <li key={i} className="rounded border border-slate-200 p-2" data-testid="suggested-fix">
                <div className="flex flex-wrap items-center gap-2">
                  <span className="font-medium">{f.title}</span>
                  <span className={`rounded px-1.5 text-xs ${f.rescues ? "bg-green-100 text-green-900" : "bg-slate-100 text-slate-700"}`}>
                    {f.rescues ? "rescues" : "does not rescue"}
                  </span>
                  {breaks > 0 && (
                    <span className="rounded bg-red-100 px-1.5 text-xs text-red-900">
                      breaks {breaks} {breaks === 1 ? "question" : "questions"}
                    </span>
                  )}
                </div>
                <p className="text-slate-700">
                  Rank {rankText(f.rank.before)} → {rankText(f.rank.after)}
                  {f.scored
                    ? ` · recall@${data.k} ${pct(f.recall_at_k.before)} → ${pct(f.recall_at_k.after)}`
                    : " · not read over the other pairs and questions, as it does not rescue this one"}
                  {f.scored && f.also_rescues.length > 0 && ` · also rescues ${f.also_rescues.map((p) => `"${p.query}"`).join(", ")}`}
                </p>
                {f.scored && breaks > 0 && (
                  <ul className="list-disc pl-5 text-red-800">
                    {f.regressions.pairs.map((p) => (
                      <li key={`p${p.pair_id}`}>
                        &quot;{p.query}&quot; → {p.expected}: rank {rankText(p.rank.before)} → {rankText(p.rank.after)}
                      </li>
                    ))}
                    {f.regressions.questions.map((q) => (
                      <li key={`q${q.call_id}`}>
                        &quot;{q.text}&quot; would be {q.after.ending === "refused" ? "refused" : "left without results"}
                      </li>
                    ))}
                  </ul>
                )}
                <div className="mt-1 flex flex-wrap items-center gap-3">
                  {staged[i]?.id ? (
                    <Link className="text-blue-700 underline" href={`/agents/${agentId}/drafts#draft-${staged[i].id}`}>
                      Staged in draft {staged[i].id}: preview and publish it
                    </Link>
                  ) : (
                    <button
                      type="button"
                      onClick={() => stage(i, f)}
                      disabled={staged[i] !== undefined && !staged[i].error}
                      className="rounded border border-slate-300 px-2 py-1 hover:bg-slate-50 disabled:opacity-50"
                    >
                      Stage in a new draft
                    </button>
                  )}
                  {staged[i]?.error && (
                    <span role="alert" className="text-red-700">
                      {staged[i].error}
                    </span>
                  )}
                </div>
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}
