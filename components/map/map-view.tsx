"use client";

import { useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useCallback, useMemo, useState } from "react";
import type { MapAnswer } from "@/lib/map/view";
import { apiFetch } from "@/lib/client/fetch";
import { plural } from "@/lib/format/plural";
import { queryKeys } from "@/lib/client/query-keys";
import { colour, metadataKeys, markersOf, type ColourBy, type ReadyMap } from "./categories";
import { MapLegend } from "./legend";
import { ScatterCanvas } from "./scatter";

/** How often the page asks again while a map is being computed. */
const POLL_MS = 1_000;

const computing = (m: MapAnswer | undefined) => !m || m.status === "computing" || (m.status === "ready" && m.progress !== null);

function Progress({ fraction, phase }: { fraction: number; phase: string }) {
  const percent = Math.round(fraction * 100);
  return (
    <div role="status" className="space-y-1 text-sm text-slate-700">
      <p>
        Computing the map: {phase}, {percent}%.
      </p>
      <progress max={100} value={percent} aria-label="Map computed" className="w-64" />
    </div>
  );
}

/** What the pointer is over: a chunk (its text is fetched) or a question. */
function Hovered({ agentId, map, index }: { agentId: number; map: ReadyMap; index: number }) {
  const chunk = index < map.chunks.length ? map.chunks[index] : null;
  const question = chunk ? null : map.questions[index - map.chunks.length];
  const text = useQuery({
    queryKey: [...queryKeys.agent(agentId), "map-chunk", chunk?.document_id, chunk?.chunk_index],
    queryFn: () =>
      apiFetch<{ text: string }>(`/api/agents/${agentId}/map/chunk?document_id=${chunk!.document_id}&chunk_index=${chunk!.chunk_index}`),
    enabled: chunk !== null,
    staleTime: 60_000,
  });
  return (
    <div role="status" aria-live="polite" className="min-h-24 rounded border border-slate-200 bg-white p-3 text-sm" data-testid="map-hover">
      {chunk && (
        <>
          <p className="font-medium">
            {chunk.filename}, chunk {chunk.chunk_index}
          </p>
          <p className="text-xs text-slate-600">
            {chunk.retrieved === 0
              ? `Not retrieved in the last ${map.retrieved_days} days.`
              : `Retrieved by ${plural(chunk.retrieved, "call")} in the last ${map.retrieved_days} days.`}
          </p>
          <p className="mt-1 whitespace-pre-wrap text-slate-700">
            {text.data ? text.data.text.slice(0, 600) : text.isError ? "Its text could not be read." : "…"}
          </p>
        </>
      )}
      {question && (
        <>
          <p className="font-medium">
            Question{question.gap ? " (gap)" : question.refused > 0 ? ` (refused ${question.refused} of ${question.asked})` : ""}
          </p>
          <p className="mt-1 text-slate-700">{question.text}</p>
        </>
      )}
    </div>
  );
}

/** The agent's map: its chunks by document (or metadata value) and its questions, polled while it is computed. */
export function MapView({ agentId }: { agentId: number }) {
  const router = useRouter();
  const [colourBy, setColourBy] = useState<ColourBy>({ by: "document" });
  const [hover, setHover] = useState<number | null>(null);
  const answer = useQuery({
    queryKey: [...queryKeys.agent(agentId), "map"],
    queryFn: () => apiFetch<MapAnswer>(`/api/agents/${agentId}/map`),
    refetchInterval: (q) => (computing(q.state.data) && !q.state.error ? POLL_MS : false),
  });
  const map = answer.data?.status === "ready" ? answer.data : null;
  const coloured = useMemo(() => (map ? colour(map, colourBy) : null), [map, colourBy]);
  const colors = useMemo(() => coloured?.categories.map((c) => c.color) ?? [], [coloured]);
  const markers = useMemo(() => (coloured ? markersOf(coloured.categories) : []), [coloured]);
  const points = useMemo(
    () => (coloured ? { x: coloured.x, y: coloured.y, category: coloured.category, size: coloured.size } : null),
    [coloured],
  );
  const onPick = useCallback(
    (i: number) => {
      if (!map) return;
      const chunk = map.chunks[i];
      if (chunk) router.push(`/agents/${agentId}/documents/${chunk.document_id}#indexed-${chunk.chunk_index}`);
      else {
        const q = map.questions[i - map.chunks.length];
        if (q) router.push(`/agents/${agentId}/search?q=${encodeURIComponent(q.text)}`);
      }
    },
    [map, agentId, router],
  );

  if (answer.error)
    return (
      <p role="alert" className="text-sm text-red-700">
        {answer.error.message}
      </p>
    );
  const data = answer.data;
  if (!data || data.status === "computing")
    return <Progress fraction={data?.progress.fraction ?? 0} phase={data?.progress.phase ?? "starting"} />;
  if (data.status === "failed")
    return (
      <p role="alert" className="text-sm text-red-700">
        {data.message}
      </p>
    );
  const m = data;
  const keys = metadataKeys(m);
  const gaps = m.questions.filter((q) => q.gap || q.refused > 0).length;
  const summary =
    `${plural(m.chunks.length, "chunk")} of ${plural(m.documents.length, "document")} and ${plural(m.questions.length, "question")}` +
    (m.questions.length ? ` (${gaps} gaps or refused)` : "") +
    `, laid out by UMAP from their vectors: chunks that are near in meaning are near on the map.`;

  return (
    <div className="space-y-4">
      <p className="max-w-3xl text-sm text-slate-700" data-testid="map-summary">
        {summary} Computed {new Date(m.computed_at).toLocaleString()} in {(m.took_ms / 1000).toFixed(1)} s.
        {m.left_out > 0 && ` ${m.left_out} chunks are not on it yet: their vectors are still being copied after start-up.`}
      </p>
      {m.stale && (
        <div role="note" className="rounded border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900">
          The documents or questions changed since this map was computed; it is out of date.{" "}
          {m.progress ? <Progress fraction={m.progress.fraction} phase={m.progress.phase} /> : m.failure}
        </div>
      )}
      {m.chunks.length === 0 ? (
        <p className="rounded border border-dashed border-slate-300 bg-white p-8 text-center text-slate-600">
          No ready document to map yet: upload documents and their chunks appear here.
        </p>
      ) : (
        <div className="flex flex-wrap items-start gap-6">
          <div className="w-full max-w-[640px] flex-1">
            {points && (
              <ScatterCanvas
                points={points}
                colors={colors}
                markers={markers}
                label={`Map of ${summary}`}
                onHover={setHover}
                onPick={onPick}
              />
            )}
            <p className="mt-1 text-xs text-slate-500">
              Drag to pan, scroll to zoom; point at a dot to read it, click it to open it. A larger dot was retrieved by more of the
              agent&apos;s calls in the last {m.retrieved_days} days.
            </p>
          </div>
          <div className="w-72 space-y-4">
            <label className="block text-sm">
              <span className="font-medium">Colour by</span>
              <select
                className="mt-1 block w-full rounded border border-slate-300 px-2 py-1"
                value={colourBy.by === "document" ? "" : colourBy.key}
                onChange={(e) => setColourBy(e.target.value ? { by: "metadata", key: e.target.value } : { by: "document" })}
              >
                <option value="">Document</option>
                {keys.map((k) => (
                  <option key={k} value={k}>
                    Metadata: {k}
                  </option>
                ))}
              </select>
            </label>
            {coloured && <MapLegend categories={coloured.categories} />}
            {hover !== null && <Hovered agentId={agentId} map={m} index={hover} />}
          </div>
        </div>
      )}
    </div>
  );
}
