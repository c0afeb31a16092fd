import Link from "next/link";
import type { FileProgress, UploadJob } from "@/lib/ingest/uploads";
import { resultLine } from "@/lib/ingest/result-line";
import { isActiveFile } from "@/lib/ingest/upload-progress";

const STAGES = ["extract", "chunk", "embed", "write"] as const;

/** Overall share done: each stage is a quarter, embed and write move with the chunk count. */
function percent(p: FileProgress): number {
  if (p.result || p.stage === "done") return 100;
  if (p.stage === "queued") return 0;
  const i = STAGES.indexOf(p.stage);
  const within = p.total > 0 ? p.done / p.total : 0;
  return Math.round(((i + within) / STAGES.length) * 100);
}

/** Uploads of more files than this list only the files being indexed and those not indexed. */
export const FULL_LIST_FILES = 50;

export function FileProgressList({ agentId, job }: { agentId: number; job: UploadJob }) {
  const long = job.expected_files > FULL_LIST_FILES;
  // A long upload's job may list its active files only (`index` is then each one's place).
  const problems = job.files.filter((f) => f.result && f.result.status !== "ready").length;
  const indexed = job.done_files - problems;
  const shown = job.files.map((f, i) => ({ f, i: f.index ?? i })).filter(({ f }) => !long || isActiveFile(f));
  const overall = job.expected_files > 0 ? Math.round((job.done_files / job.expected_files) * 100) : 100;
  return (
    <div className="space-y-2">
      <h3 className="text-sm font-medium">{job.finished ? "Upload finished" : "Indexing…"}</h3>
      {long && (
        <div className="space-y-1 text-sm">
          <p data-testid="upload-summary">
            {job.done_files} of {job.expected_files} files done: {indexed} indexed or already present
            {problems > 0 && `, ${problems} not indexed (listed below)`}
            {job.files_received < job.expected_files && !job.finished && ` · ${job.files_received} received so far`}
            {job.not_received > 0 && ` · ${job.not_received} never sent`}
          </p>
          <div
            role="progressbar"
            aria-label="Progress of the upload"
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={overall}
            className="h-2 overflow-hidden rounded bg-slate-200"
          >
            <div className="h-full bg-blue-600 transition-all" style={{ width: `${overall}%` }} />
          </div>
        </div>
      )}
      <ul className="space-y-2" aria-label="Upload progress">
        {shown.map(({ f, i }) => {
          const r = f.result;
          // Once a file has its result, that one line replaces its name and stage.
          const pct = percent(f);
          return (
            <li key={`${f.filename}-${i}`} className="space-y-1 text-sm">
              {r ? (
                <p className={r.status === "ready" ? "text-green-800" : "text-red-700"}>
                  {resultLine(r)}
                  {r.document_id && r.status === "ready" && (
                    <>
                      {" · "}
                      <Link href={`/agents/${agentId}/documents/${r.document_id}`} className="text-blue-700 underline">
                        open
                      </Link>
                    </>
                  )}
                </p>
              ) : (
                <div className="flex justify-between gap-4">
                  <span className="font-medium">{f.filename}</span>
                  <span className="text-slate-600">{f.stage === "queued" ? "waiting" : `${f.stage}…`}</span>
                </div>
              )}
              <div
                role="progressbar"
                aria-label={`Progress of ${f.filename}`}
                aria-valuemin={0}
                aria-valuemax={100}
                aria-valuenow={pct}
                className="h-2 overflow-hidden rounded bg-slate-200"
              >
                <div
                  className={`h-full transition-all ${r && r.status !== "ready" ? "bg-red-500" : "bg-blue-600"}`}
                  style={{ width: `${pct}%` }}
                />
              </div>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
