"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useActionState, useEffect, useState } from "react";
import { updateRerankerAction, type RerankerFormState } from "@/lib/actions/reranker";
import { queryKeys } from "@/lib/client/query-keys";
import type { rerankerStatus } from "@/lib/rerank/settings";
import { MAX_RERANK_CANDIDATES, RERANKERS, type RerankerName } from "@/lib/rerank/types";
import { SubmitButton } from "@/components/ui/submit-button";
import { TrainReranker } from "./train-reranker";

/** What GET /api/agents/{id}/reranker answers. */
export type RerankerStatus = ReturnType<typeof rerankerStatus>;
type Model = NonNullable<RerankerStatus["latest"]>;

const NOTE: Record<RerankerName, string> = {
  none: "The mode's order stands: the results are its first top_k.",
  mmr: "Maximal marginal relevance: near-copies of one passage make room for other documents. Lambda is the share of relevance against diversity (1: relevance only).",
  learned:
    "A model trained on this agent's labeled pairs reorders the candidates. It can be chosen once a trained model beats the mode's order on questions it was not trained on.",
  http: "A reranking endpoint (Cohere-, Jina- or TEI-compatible) scores the candidates.",
  chat: "The chat model scores how well each candidate answers the question.",
};

const NEEDS = { http: "RERANK_BASE_URL", chat: "a chat model (OPENAI_CHAT_MODEL)" };

/** A timestamp the same on the server and in the browser, whatever their time zones. */
const stamp = (iso: string) => `${iso.slice(0, 16).replace("T", " ")} UTC`;

const modelText = (m: Model) =>
  `${m.name}, trained ${stamp(m.trained_at)} on ${m.mode} pools: ${m.wins ? "won" : "did not win"} its cross-validation ` +
  `(MRR ${m.cross_validation.without.mrr.toFixed(3)} without, ${m.cross_validation.with.mrr.toFixed(3)} with)`;

/** The agent's rerank stage: which reranker orders its mode's first candidates, and the learned one's training. */
export function RerankerForm({ agentId, status }: { agentId: number; status: RerankerStatus }) {
  const [state, action] = useActionState<RerankerFormState, FormData>(updateRerankerAction.bind(null, agentId), {});
  const shown = (state.values?.reranker as RerankerName | undefined) ?? status.reranker;
  const [choice, setChoice] = useState<RerankerName>(shown);
  // A save or a training changes the reranker shown: the choice follows it.
  const [follows, setFollows] = useState(shown);
  if (follows !== shown) {
    setFollows(shown);
    setChoice(shown);
  }
  const client = useQueryClient();
  // The inspector's cached rankings were made with the old reranker.
  useEffect(() => {
    if (state.ok) void client.invalidateQueries({ queryKey: queryKeys.agent(agentId) });
  }, [state, client, agentId]);
  const unavailable = (["http", "chat"] as const).filter((r) => !status.available[r]);
  const error = state.errors?.reranker?.[0] ?? state.errors?.rerank_candidates?.[0] ?? state.errors?.mmr_lambda?.[0];
  return (
    <section aria-labelledby="reranker-heading" className="space-y-4 rounded border border-slate-200 bg-white p-4">
      <h2 id="reranker-heading" className="font-semibold">
        Reranker
      </h2>
      <p className="max-w-3xl text-sm text-slate-600">
        A reranker reorders the first candidates of the agent&apos;s retrieval mode before its top_k are returned. The inspector shows each
        result&apos;s reranker score and its place before; the Recall tab compares runs with and without it.
      </p>
      <form action={action} noValidate aria-label="Reranker settings" aria-describedby="reranker-status" className="space-y-3">
        <div className="flex flex-wrap items-end gap-4">
          <div className="flex flex-col gap-1 text-sm">
            <label htmlFor="reranker" className="font-medium">
              Reranker
            </label>
            <select
              // A select reads its default only when mounted.
              key={shown}
              id="reranker"
              name="reranker"
              defaultValue={shown}
              onChange={(e) => setChoice(e.target.value as RerankerName)}
              aria-invalid={state.errors?.reranker ? true : undefined}
              aria-describedby="reranker-note reranker-status"
              className="w-56 rounded border border-slate-300 px-2 py-1.5"
            >
              {RERANKERS.map((r) => (
                <option key={r} value={r} disabled={(r === "http" || r === "chat") && !status.available[r]}>
                  {r}
                  {(r === "http" || r === "chat") && !status.available[r] ? " (not configured)" : ""}
                </option>
              ))}
            </select>
          </div>
          <label className="flex flex-col gap-1 text-sm font-medium">
            Rerank candidates
            <input
              name="rerank_candidates"
              type="number"
              min={1}
              max={MAX_RERANK_CANDIDATES}
              step={1}
              defaultValue={state.values?.rerank_candidates ?? status.rerank_candidates}
              aria-invalid={state.errors?.rerank_candidates ? true : undefined}
              aria-describedby="reranker-status"
              className="w-28 rounded border border-slate-300 px-2 py-1.5 font-normal"
            />
          </label>
          {choice === "mmr" && (
            <label className="flex flex-col gap-1 text-sm font-medium">
              MMR lambda
              <input
                name="mmr_lambda"
                type="number"
                min={0}
                max={1}
                step={0.05}
                defaultValue={state.values?.mmr_lambda || status.mmr_lambda}
                aria-invalid={state.errors?.mmr_lambda ? true : undefined}
                aria-describedby="reranker-status"
                className="w-28 rounded border border-slate-300 px-2 py-1.5 font-normal"
              />
            </label>
          )}
          <SubmitButton pendingText="Saving…">Save reranker</SubmitButton>
        </div>
        <p id="reranker-note" className="max-w-3xl text-sm text-slate-600">
          {NOTE[choice]} The first {status.rerank_candidates} of the mode&apos;s order are reranked (1 to {MAX_RERANK_CANDIDATES}).
          {unavailable.length > 0 &&
            ` Not available here: ${unavailable.map((r) => `${r} needs ${NEEDS[r]}`).join("; ")} (see docs/searching.md).`}
        </p>
        <p id="reranker-status" aria-live="polite" className={`text-sm ${state.ok ? "text-green-800" : "text-red-700"}`}>
          {error ?? state.message}
        </p>
      </form>
      <div className="space-y-3 border-t border-slate-200 pt-4">
        <h3 className="font-medium">Learned reranker</h3>
        <p className="max-w-3xl text-sm text-slate-600">
          Training ranks every labeled question whose document is ready and learns which candidates its expected document is among. Its
          figures come from cross-validation: each question is ranked by a model trained on the other folds only.
        </p>
        <ul className="space-y-1 text-sm">
          {status.reranker === "learned" && status.model && <li>Serving: {modelText(status.model)}.</li>}
          <li>{status.latest ? `Newest model: ${modelText(status.latest)}.` : "No learned model trained yet."}</li>
        </ul>
        {status.labels_changed && (
          <p role="note" className="rounded border border-amber-300 bg-amber-50 p-2 text-sm text-amber-900">
            Labels changed since this model was trained: train again to learn from them.
          </p>
        )}
        <TrainReranker agentId={agentId} latest={status.latest} />
      </div>
    </section>
  );
}
