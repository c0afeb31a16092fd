"use client";

import { useState } from "react";
import { useRouter } from "next/navigation";
import type { Facet } from "@/lib/db/metadata";
import { formatValue, type Metadata, type MetadataValue } from "@/lib/core/metadata";
import { ApiError, postJson } from "@/lib/client/fetch";
import { plural } from "@/lib/format/plural";

/** A document's own metadata keys as small labels. */
export function MetadataChips({ metadata }: { metadata: Metadata }) {
  const entries = Object.entries(metadata);
  if (entries.length === 0) return <span className="text-slate-600">none</span>;
  return (
    <ul className="flex flex-wrap gap-1" aria-label="Metadata">
      {entries.map(([k, v]) => (
        <li key={k} className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs text-slate-700">
          {k}: {formatValue(v)}
        </li>
      ))}
    </ul>
  );
}

type FacetValue = Facet["values"][number]["value"];

/**
 * The agent's metadata keys with their commonest values and how many ready documents have each;
 * choosing values narrows the list (one value per key; values of different keys must all hold).
 */
export function FacetPicker({
  facets,
  chosen,
  onChoose,
}: {
  facets: Facet[];
  chosen: Record<string, FacetValue>;
  onChoose: (key: string, value: FacetValue | null) => void;
}) {
  if (facets.length === 0)
    return (
      <p className="text-sm text-slate-600">
        No metadata yet. Set it at upload (a JSON object, or a Markdown file&apos;s front matter), or select documents below and set a key.
      </p>
    );
  return (
    <div className="space-y-1" role="group" aria-label="Filter by metadata">
      {facets.map((f) => (
        <div key={f.key} className="flex flex-wrap items-center gap-1 text-sm">
          <span className="font-mono text-slate-700">
            {f.key} <span className="text-slate-500">({f.documents})</span>
          </span>
          {f.values.map((v) => {
            const on = f.key in chosen && chosen[f.key] === v.value;
            return (
              <button
                key={String(v.value)}
                type="button"
                aria-pressed={on}
                onClick={() => onChoose(f.key, on ? null : v.value)}
                className={`rounded border px-1.5 py-0.5 text-xs ${on ? "border-blue-700 bg-blue-700 text-white" : "border-slate-300 bg-white hover:bg-slate-50"}`}
              >
                {String(v.value)} · {v.documents}
              </button>
            );
          })}
          {f.more > 0 && <span className="text-xs text-slate-500">and {plural(f.more, "more value")}</span>}
        </div>
      ))}
    </div>
  );
}

/** What a value typed in the bulk form is: a number, true or false, a JSON list, or else text. */
export function typedValue(raw: string): MetadataValue {
  const v = raw.trim();
  if (/^-?\d+(\.\d+)?$/.test(v)) return Number(v);
  if (v === "true" || v === "false") return v === "true";
  if (v.startsWith("[")) {
    try {
      const list = JSON.parse(v) as unknown;
      if (Array.isArray(list)) return list as string[];
    } catch {
      // not a list: kept as text
    }
  }
  return v;
}

/** Sets (or removes) one metadata key on the selected documents, all of them or none. */
export function BulkMetadataForm({ agentId, selected, onDone }: { agentId: number; selected: number[]; onDone: () => void }) {
  const router = useRouter();
  const [key, setKey] = useState("");
  const [value, setValue] = useState("");
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const apply = async (remove: boolean) => {
    if (!key.trim()) return setMessage({ ok: false, text: "Name the key to set." });
    if (!remove && !value.trim()) return setMessage({ ok: false, text: "Give a value, or remove the key." });
    setBusy(true);
    setMessage(null);
    try {
      await postJson(`/api/agents/${agentId}/documents/metadata`, {
        document_ids: selected,
        metadata: { [key.trim()]: remove ? null : typedValue(value) },
      });
      setMessage({
        ok: true,
        text: remove
          ? `Removed "${key.trim()}" from ${plural(selected.length, "document")}.`
          : `Set "${key.trim()}" on ${plural(selected.length, "document")}.`,
      });
      onDone();
      router.refresh();
    } catch (err) {
      setMessage({ ok: false, text: err instanceof ApiError ? err.message : "The change could not be sent; nothing was changed." });
    } finally {
      setBusy(false);
    }
  };
  return (
    <div
      className="flex flex-wrap items-end gap-2 rounded border border-blue-200 bg-blue-50 p-2 text-sm"
      role="group"
      aria-label="Set metadata on the selected documents"
    >
      <span className="self-center font-medium">{plural(selected.length, "document")} selected:</span>
      <label className="flex flex-col gap-0.5">
        Key
        <input value={key} onChange={(e) => setKey(e.target.value)} className="w-36 rounded border border-slate-300 px-2 py-1 font-mono" />
      </label>
      <label className="flex flex-col gap-0.5">
        Value
        <input
          value={value}
          onChange={(e) => setValue(e.target.value)}
          placeholder='router, 3, true or ["a", "b"]'
          className="w-56 rounded border border-slate-300 px-2 py-1 font-mono"
        />
      </label>
      <button
        type="button"
        disabled={busy || selected.length === 0}
        onClick={() => apply(false)}
        className="rounded bg-blue-700 px-3 py-1.5 font-medium text-white hover:bg-blue-800 disabled:opacity-50"
      >
        Set key
      </button>
      <button
        type="button"
        disabled={busy || selected.length === 0}
        onClick={() => apply(true)}
        className="rounded border border-slate-300 bg-white px-3 py-1.5 hover:bg-slate-50 disabled:opacity-50"
      >
        Remove key
      </button>
      <p aria-live="polite" className={`w-full ${message?.ok ? "text-green-800" : "text-red-700"}`}>
        {message?.text}
      </p>
    </div>
  );
}
