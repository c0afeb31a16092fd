"use client";

import { useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { startUploadAction } from "@/lib/actions/documents";
import { apiFetch } from "@/lib/http/client-fetch";
import { DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE, DEFAULT_CHUNK_STRATEGY, type ChunkStrategy } from "@/lib/ingest/chunking";
import { queryKeys } from "@/lib/http/query-keys";
import type { UploadJob } from "@/lib/ingest/uploads";
import { ChunkPreview } from "./chunk-preview";
import { FileProgressList } from "./file-progress";
import { StrategySelect } from "./strategy-select";

const ACCEPT = ".txt,.md,.markdown,.html,.htm,.pdf,.docx";

export function UploadPanel({ agentId }: { agentId: number }) {
  const router = useRouter();
  const [files, setFiles] = useState<File[]>([]);
  const [previewIndex, setPreviewIndex] = useState(0);
  const [size, setSize] = useState(String(DEFAULT_CHUNK_SIZE));
  const [overlap, setOverlap] = useState(String(DEFAULT_CHUNK_OVERLAP));
  const [strategy, setStrategy] = useState<ChunkStrategy>(DEFAULT_CHUNK_STRATEGY);
  const [dragging, setDragging] = useState(false);
  const [jobId, setJobId] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [starting, setStarting] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);

  const job = useQuery({
    queryKey: queryKeys.upload(agentId, jobId ?? ""),
    queryFn: () => apiFetch<UploadJob>(`/api/agents/${agentId}/uploads/${jobId}`),
    enabled: jobId !== null,
    staleTime: 0,
    refetchInterval: (q) => (q.state.data?.finished ? false : 400),
  });
  const finished = job.data?.finished ?? false;
  useEffect(() => {
    if (finished) router.refresh();
  }, [finished, router]);

  const choose = (list: FileList | null) => {
    if (!list || list.length === 0) return;
    setFiles(Array.from(list));
    setPreviewIndex(0);
    setJobId(null);
    setError(null);
  };

  const upload = async () => {
    if (files.length === 0) return;
    setStarting(true);
    setError(null);
    const form = new FormData();
    for (const f of files) form.append("files", f);
    form.set("chunk_size", size);
    form.set("chunk_overlap", overlap);
    form.set("chunk_strategy", strategy);
    try {
      const res = await startUploadAction(agentId, form);
      if (res.jobId) setJobId(res.jobId);
      else setError(res.message ?? "The upload did not start.");
    } catch {
      setError("The upload could not be sent; check the server and try again.");
    } finally {
      setStarting(false);
    }
  };

  const busy = starting || (jobId !== null && !finished);
  return (
    <section aria-labelledby="upload-heading" className="space-y-4 rounded border border-slate-200 bg-white p-4">
      <h2 id="upload-heading" className="font-semibold">
        Upload articles
      </h2>
      <div
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={(e) => {
          e.preventDefault();
          setDragging(false);
          choose(e.dataTransfer.files);
        }}
        className={`flex flex-col items-center gap-2 rounded border-2 border-dashed p-6 text-sm ${
          dragging ? "border-blue-500 bg-blue-50" : "border-slate-300"
        }`}
      >
        <p>Drop .txt, .md, .html, .pdf or .docx files here, or</p>
        <label className="cursor-pointer rounded border border-slate-300 bg-slate-50 px-3 py-1.5 font-medium hover:bg-slate-100 has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-blue-700">
          Choose files
          <input ref={inputRef} type="file" multiple accept={ACCEPT} className="sr-only" aria-label="Files" onChange={(e) => choose(e.target.files)} />
        </label>
        {files.length > 0 && <p className="text-slate-600">{files.length === 1 ? "1 file selected" : `${files.length} files selected`}</p>}
      </div>

      <div className="flex flex-wrap items-end gap-4">
        <label className="flex flex-col gap-1 text-sm font-medium">
          Chunk size (characters)
          <input type="number" min={1} value={size} onChange={(e) => setSize(e.target.value)} className="w-32 rounded border border-slate-300 px-2 py-1.5 font-normal" />
        </label>
        <label className="flex flex-col gap-1 text-sm font-medium">
          Overlap (characters)
          <input type="number" min={0} value={overlap} onChange={(e) => setOverlap(e.target.value)} className="w-32 rounded border border-slate-300 px-2 py-1.5 font-normal" />
        </label>
        <StrategySelect value={strategy} onChange={setStrategy} />
        <button
          type="button"
          onClick={upload}
          disabled={files.length === 0 || busy}
          className="rounded bg-blue-700 px-4 py-2 text-sm font-medium text-white hover:bg-blue-800 disabled:opacity-50"
        >
          {busy ? "Indexing…" : "Upload and index"}
        </button>
      </div>
      <p aria-live="polite" className="text-sm text-red-700">
        {error}
      </p>

      {files.length > 0 && !jobId && (
        <ChunkPreview agentId={agentId} files={files} index={previewIndex} onIndex={setPreviewIndex} size={Number(size)} overlap={Number(overlap)} strategy={strategy} />
      )}
      {job.data && <FileProgressList agentId={agentId} job={job.data} />}
      {job.error && <p className="text-sm text-red-700">Progress is not available: {job.error.message}</p>}
    </section>
  );
}
