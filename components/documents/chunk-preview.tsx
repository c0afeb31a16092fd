"use client";

import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { apiFetch } from "@/lib/client/fetch";
import { queryKeys } from "@/lib/client/query-keys";
import { chunkText, STRATEGY_LABELS, type ChunkStrategy } from "@/lib/core/chunking";
import { ChunkedText } from "./chunked-text";

interface Preview {
  type: string;
  length: number;
  truncated: boolean;
  text: string;
}

/** Chunk count and boundaries for one selected file, recomputed as the settings change. */
export function ChunkPreview(props: {
  agentId: number;
  files: File[];
  index: number;
  onIndex: (i: number) => void;
  size: number;
  overlap: number;
  strategy: ChunkStrategy;
}) {
  const file = props.files[Math.min(props.index, props.files.length - 1)];
  const preview = useQuery({
    queryKey: queryKeys.preview(props.agentId, file),
    queryFn: () => {
      const form = new FormData();
      form.set("file", file);
      return apiFetch<Preview>(`/api/agents/${props.agentId}/documents/preview`, { method: "POST", body: form });
    },
    retry: false,
    staleTime: Infinity,
  });
  const outcome = useMemo(() => {
    if (!preview.data) return null;
    try {
      return { chunks: chunkText(preview.data.text, props.size, props.overlap, props.strategy) };
    } catch (err) {
      return { error: (err as Error).message };
    }
  }, [preview.data, props.size, props.overlap, props.strategy]);

  return (
    <div className="space-y-2 border-t border-slate-200 pt-4" aria-live="polite">
      <div className="flex flex-wrap items-center gap-3 text-sm">
        <label className="flex items-center gap-2 font-medium">
          Preview of
          <select
            value={props.index}
            onChange={(e) => props.onIndex(Number(e.target.value))}
            className="rounded border border-slate-300 px-2 py-1 font-normal"
          >
            {props.files.map((f, i) => (
              <option key={`${f.name}-${i}`} value={i}>
                {f.name}
              </option>
            ))}
          </select>
        </label>
        {outcome?.chunks && preview.data && (
          <span data-testid="preview-summary">
            {outcome.chunks.length === 1 ? "1 chunk" : `${outcome.chunks.length} chunks`} from {preview.data.length.toLocaleString("en")}{" "}
            characters, split {STRATEGY_LABELS[props.strategy]}
            {preview.data.truncated ? " (showing the beginning)" : ""}
          </span>
        )}
      </div>
      {preview.isPending && <p className="text-sm text-slate-600">Reading the file…</p>}
      {preview.error && <p className="text-sm text-red-700">This file will be rejected: {preview.error.message}</p>}
      {outcome?.error && <p className="text-sm text-red-700">{outcome.error}</p>}
      {outcome?.chunks && preview.data && (
        <ChunkedText text={preview.data.text} chunks={outcome.chunks} label={`${file.name}, as it would be chunked`} />
      )}
    </div>
  );
}
