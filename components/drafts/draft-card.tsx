"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { apiFetch } from "@/lib/client/fetch";
import type { DraftImpact } from "@/lib/evaluation/impact";
import type { DraftView } from "@/lib/ingest/drafts";

const pct = (x: number | null) => (x === null ? "—" : `${(x * 100).toFixed(1)}%`);
const num = (x: number | null) => (x === null ? "—" : x.toFixed(3));
const rankText = (r: number | null) => (r === null ? "not found" : String(r));

/** One draft: what it stages, its impact on demand, and publish or discard. */
export function DraftCard({ agentId, draft }: { agentId: number; draft: DraftView }) {
  const router = useRouter();
  const [k, setK] = useState(3);
  const [impact, setImpact] = useState<{ loading?: boolean; data?: DraftImpact; error?: string }>({});
  const [action, setAction] = useState<{ busy?: boolean; error?: string; done?: string }>({});
  const base = `/api/agents/${agentId}/drafts/${draft.id}`;

  const preview = async () => {
    setImpact({ loading: true });
    try {
      setImpact({ data: await apiFetch<DraftImpact>(`${base}/impact?k=${k}`) });
    } catch (err) {
      setImpact({ error: err instanceof Error ? err.message : String(err) });
    }
  };
  const run = async (what: "publish" | "discard") => {
    if (what === "discard" && !window.confirm(`Discard draft "${draft.name}" and everything it stages?`)) return;
    setAction({ busy: true });
    try {
      if (what === "publish") await apiFetch(`${base}/publish`, { method: "POST" });
      else await apiFetch(base, { method: "DELETE" });
      setAction({ done: what === "publish" ? "Published: the agent now serves these changes." : "Discarded." });
      router.refresh();
    } catch (err) {
      setAction({ error: err instanceof Error ? err.message : String(err) });
    }
  };

  const s = draft.settings;
  const d = impact.data;
  return (
    <section
      id={`draft-${draft.id}`}
      aria-label={`Draft ${draft.name}`}
      className="space-y-3 rounded border border-slate-200 bg-white p-4 text-sm"
    >
      <h2 className="font-semibold">
        {draft.name} <span className="font-normal text-slate-500">· draft {draft.id}</span>
      </h2>
      {draft.base_changed && (
        <p role="alert" className="rounded border border-amber-300 bg-amber-50 p-2">
          A document this draft builds on was replaced or deleted since it was staged: publishing is refused until the draft is made again.
          Its impact is read over what the agent serves now.
        </p>
      )}
      <ul className="list-disc pl-5" aria-label="What it stages">
        {draft.documents.map((doc) => (
          <li key={doc.document_id}>
            {doc.base_id === null ? "New" : "Changed"}: {doc.filename} ({doc.chunk_count} chunks
            {doc.status === "draft" ? "" : `, ${doc.status}`}
            {doc.enabled ? "" : ", switched off"})
          </li>
        ))}
        {draft.removals.map((r) => (
          <li key={`r${r.base_id}`}>Removed: {r.filename}</li>
        ))}
        {s.retrieval_mode !== undefined && <li>Retrieval mode: {s.retrieval_mode}</li>}
        {s.cut !== undefined && <li>No-match cut: {s.cut === null ? "none" : s.cut.maxDistance}</li>}
        {draft.documents.length + draft.removals.length === 0 && s.retrieval_mode === undefined && s.cut === undefined && (
          <li>Nothing yet.</li>
        )}
      </ul>
      <div className="flex flex-wrap items-center gap-3">
        <label className="flex items-center gap-1">
          k
          <input
            type="number"
            min={1}
            max={20}
            value={k}
            onChange={(e) => setK(Math.min(20, Math.max(1, Number(e.target.value) || 1)))}
            className="w-16 rounded border border-slate-300 px-2 py-1"
          />
        </label>
        <button
          type="button"
          onClick={preview}
          disabled={impact.loading}
          className="rounded border border-slate-300 px-3 py-1.5 hover:bg-slate-50"
        >
          {impact.loading ? "Reading the impact…" : "Preview impact"}
        </button>
        <button
          type="button"
          onClick={() => run("publish")}
          disabled={action.busy || draft.base_changed}
          className="rounded bg-blue-700 px-3 py-1.5 text-white hover:bg-blue-800 disabled:opacity-50"
        >
          Publish
        </button>
        <button
          type="button"
          onClick={() => run("discard")}
          disabled={action.busy}
          className="rounded border border-red-300 px-3 py-1.5 text-red-800 hover:bg-red-50"
        >
          Discard
        </button>
        <a className="text-blue-700 underline" href={`/agents/${agentId}/search?draft=${draft.id}`}>
          Inspect through this draft
        </a>
        <a className="text-blue-700 underline" href={`/agents/${agentId}/questions?draft=${draft.id}#replay-heading`}>
          Replay questions through it
        </a>
        {action.done && (
          <span role="status" className="text-green-800">
            {action.done}
          </span>
        )}
        {action.error && (
          <span role="alert" className="text-red-700">
            {action.error}
          </span>
        )}
      </div>
      {impact.error && (
        <p role="alert" className="text-red-700">
          {impact.error}
        </p>
      )}
      {d && (
        <div className="space-y-2" data-testid="impact">
          <p>
            Over {d.pairs.count} labeled pairs: recall@{d.k} {pct(d.pairs.recall_at_k.before)} →{" "}
            <strong>{pct(d.pairs.recall_at_k.after)}</strong>, MRR {num(d.pairs.mrr.before)} → <strong>{num(d.pairs.mrr.after)}</strong>;{" "}
            {d.pairs.rescued} rescued, {d.pairs.broken} broken.
            {d.settings.mode.before !== d.settings.mode.after && ` Mode ${d.settings.mode.before} → ${d.settings.mode.after}.`}
            {d.settings.cut.before !== d.settings.cut.after &&
              ` Cut ${d.settings.cut.before ?? "none"} → ${d.settings.cut.after ?? "none"}.`}
          </p>
          {d.pairs.changed.length > 0 && (
            <table className="w-full text-xs">
              <caption className="text-left font-medium">Pairs whose rank changes</caption>
              <thead className="text-left text-slate-600">
                <tr>
                  <th className="py-1 pr-3">Question</th>
                  <th className="py-1 pr-3">Expected</th>
                  <th className="py-1 pr-3">Rank before</th>
                  <th className="py-1">Rank after</th>
                </tr>
              </thead>
              <tbody>
                {d.pairs.changed.map((c) => (
                  <tr
                    key={c.pair_id}
                    className={`border-t border-black/10 ${c.hit.before && !c.hit.after ? "bg-red-50" : !c.hit.before && c.hit.after ? "bg-green-50" : ""}`}
                  >
                    <td className="py-1 pr-3">{c.query}</td>
                    <td className="py-1 pr-3">{c.expected}</td>
                    <td className="py-1 pr-3 font-mono">{rankText(c.rank.before)}</td>
                    <td className="py-1 font-mono">{rankText(c.rank.after)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <p>
            Of the latest {d.questions.count} logged questions, {d.questions.changed.length} would get another first result.
          </p>
          {d.questions.changed.length > 0 && (
            <ul className="list-disc pl-5 text-xs" aria-label="Logged questions whose first result changes">
              {d.questions.changed.slice(0, 50).map((q) => (
                <li key={q.call_id}>
                  &quot;{q.text}&quot;: {q.before.filename ?? q.before.ending} → {q.after.filename ?? q.after.ending}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </section>
  );
}
