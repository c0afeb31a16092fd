"use client";

import { useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { endUploadAction } from "@/lib/actions/documents";
import { uploadGroups } from "@/lib/ingest/upload-groups";
import { ApiError, apiFetch } from "@/lib/client/fetch";
import { DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE, DEFAULT_CHUNK_STRATEGY, type ChunkStrategy } from "@/lib/core/chunking";
import { queryKeys } from "@/lib/client/query-keys";
import type { UploadJob } from "@/lib/ingest/uploads";
import { FileChooser } from "@/components/ui/file-chooser";
import { plural } from "@/lib/format/plural";
import { ChunkPreview } from "./chunk-preview";
import { FileProgressList, FULL_LIST_FILES } from "./file-progress";
import { StrategySelect } from "./strategy-select";

const ACCEPT = ".txt,.md,.markdown,.html,.htm,.pdf,.docx,.png,.jpg,.jpeg,.webp";

/** The server no longer has the upload: it restarted, and its jobs live in its memory. */
const isGone = (err: unknown) => err instanceof ApiError && err.status === 404;

/**
 * `maxFiles` and `maxBytes` are the server's limits per request (MAX_FILES_PER_REQUEST,
 * MAX_REQUEST_BYTES): more files than one request may carry go as one upload in several
 * requests, sent one after another as the server makes room for them. The files go to the
 * upload API, whose routes check access before they read a byte; a server action's body is
 * read whole before anyone is asked who sent it, so actions take 1 MB at most.
 */
export function UploadPanel({ agentId, maxFiles, maxBytes }: { agentId: number; maxFiles: number; maxBytes: number }) {
  const router = useRouter();
  const [files, setFiles] = useState<File[]>([]);
  const [previewIndex, setPreviewIndex] = useState(0);
  const [size, setSize] = useState(String(DEFAULT_CHUNK_SIZE));
  const [overlap, setOverlap] = useState(String(DEFAULT_CHUNK_OVERLAP));
  const [strategy, setStrategy] = useState<ChunkStrategy>(DEFAULT_CHUNK_STRATEGY);
  const [metadata, setMetadata] = useState("");
  const [dragging, setDragging] = useState(false);
  const [jobId, setJobId] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [starting, setStarting] = useState(false);
  // Files handed to the server so far, while an upload of several requests is being sent.
  const [sent, setSent] = useState(0);
  // A long upload's queued and indexed files are counted, not listed: only the others are read.
  const [activeOnly, setActiveOnly] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);

  const job = useQuery({
    queryKey: queryKeys.upload(agentId, jobId ?? ""),
    queryFn: () => apiFetch<UploadJob>(`/api/agents/${agentId}/uploads/${jobId}${activeOnly ? "?files=active" : ""}`),
    enabled: jobId !== null,
    staleTime: 0,
    retry: (failures, err) => !isGone(err) && failures < 3,
    refetchInterval: (q) => (q.state.data?.finished || isGone(q.state.error) ? false : 400),
  });
  const finished = job.data?.finished ?? false;
  // Files already indexed stay; the ones queued or being indexed when the server stopped were not.
  const gone = jobId !== null && !finished && isGone(job.error);
  // Once indexed, the files are no longer a selection to upload: the panel is ready for the next ones.
  useEffect(() => {
    if (!finished) return;
    router.refresh();
    // Once, when the upload finishes (a server event): the selection is cleared for the next one.
    // eslint-disable-next-line react-hooks/set-state-in-effect
    setFiles([]);
    if (inputRef.current) inputRef.current.value = "";
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
    setSent(0);
    setActiveOnly(files.length > FULL_LIST_FILES);
    const groups = uploadGroups(files, maxFiles, maxBytes);
    const given = metadata.trim();
    if (given) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(given);
      } catch {
        parsed = null;
      }
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
        setError('Metadata must be a JSON object, as {"product": "router", "locale": "de"}.');
        setStarting(false);
        return;
      }
    }
    const formOf = (group: File[]) => {
      const form = new FormData();
      for (const f of group) form.append("files", f);
      // Every request of the upload carries the metadata: it applies to each of its files.
      if (given) form.set("metadata", given);
      return form;
    };
    let done = 0;
    let jobStarted: string | null = null;
    const stopped = (message: string) => {
      setError(message);
      if (jobStarted) void endUploadAction(agentId, jobStarted).catch(() => {});
    };
    const send = (url: string, form: FormData) => apiFetch<UploadJob>(url, { method: "POST", body: form });
    try {
      const first = formOf(groups[0]);
      first.set("chunk_size", size);
      first.set("chunk_overlap", overlap);
      first.set("chunk_strategy", strategy);
      first.set("expected_files", String(files.length));
      const started = await send(`/api/agents/${agentId}/uploads`, first);
      setJobId(started.id);
      jobStarted = started.id;
      done = groups[0].length;
      setSent(done);
      for (const group of groups.slice(1)) {
        await send(`/api/agents/${agentId}/uploads/${started.id}`, formOf(group));
        done += group.length;
        setSent(done);
      }
    } catch (err) {
      if (err instanceof ApiError && jobStarted === null) setError(err.message);
      else if (err instanceof ApiError) stopped(`${done} of ${files.length} files were sent; the others were not: ${err.message}`);
      else
        stopped(
          done === 0
            ? "The upload could not be sent; check the server and try again."
            : `${done} of ${files.length} files were sent; the connection failed before the others. Check the server and upload those again.`,
        );
    } finally {
      setStarting(false);
    }
  };

  const busy = starting || (jobId !== null && !finished && !gone);
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
        <p>Drop .txt, .md, .html, .pdf or .docx files, or .png, .jpg or .webp screenshots (read by OCR) here, or</p>
        <FileChooser
          label="Files"
          multiple
          accept={ACCEPT}
          inputRef={inputRef}
          onChoose={choose}
          chosen={files.length === 0 ? "" : plural(files.length, "file") + " selected"}
        />
      </div>

      <div className="flex flex-wrap items-end gap-4">
        <label className="flex flex-col gap-1 text-sm font-medium">
          Chunk size (characters)
          <input
            type="number"
            min={1}
            value={size}
            onChange={(e) => setSize(e.target.value)}
            className="w-32 rounded border border-slate-300 px-2 py-1.5 font-normal"
          />
        </label>
        <label className="flex flex-col gap-1 text-sm font-medium">
          Overlap (characters)
          <input
            type="number"
            min={0}
            value={overlap}
            onChange={(e) => setOverlap(e.target.value)}
            className="w-32 rounded border border-slate-300 px-2 py-1.5 font-normal"
          />
        </label>
        <StrategySelect value={strategy} onChange={setStrategy} />
        <label className="flex min-w-64 flex-1 flex-col gap-1 text-sm font-medium">
          Metadata for every file (JSON, optional)
          <input
            value={metadata}
            onChange={(e) => setMetadata(e.target.value)}
            placeholder='{"product": "router", "locale": "de"}'
            className="rounded border border-slate-300 px-2 py-1.5 font-mono font-normal"
          />
        </label>
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
        {gone
          ? `The server restarted during this upload and no longer has it: the files it had not finished were not indexed${job.data ? ` (${job.data.done_files} of ${files.length} were done when its progress was last read)` : ""}. Upload and index the same files again: those already indexed are recognised and skipped.`
          : error}
      </p>

      {files.length > 0 && !jobId && (
        <ChunkPreview
          agentId={agentId}
          files={files}
          index={previewIndex}
          onIndex={setPreviewIndex}
          size={Number(size)}
          overlap={Number(overlap)}
          strategy={strategy}
        />
      )}
      {starting && jobId !== null && sent < files.length && (
        <p className="text-sm text-slate-600" aria-live="polite">
          Sending files: {sent} of {files.length} sent
        </p>
      )}
      {job.data && !gone && <FileProgressList agentId={agentId} job={job.data} />}
      {job.error && !gone && <p className="text-sm text-red-700">Progress is not available: {job.error.message}</p>}
    </section>
  );
}
