import { NextResponse } from "next/server";
import { requestDraft, withAgent, type RouteCtx } from "@/lib/http/route";
import type { ErrorCode } from "@/lib/core/errors";
import { listDocuments } from "@/lib/db/documents";
import { readLimitedForm } from "@/lib/http/body";
import { ingestFiles, readUploadForm, uploadStatus } from "@/lib/ingest/uploads";

// The proxy leaves this path out (Next would buffer upload bodies for it), so both methods gate.
export const GET = withAgent<RouteCtx<"/api/agents/[id]/documents">>(
  "viewer",
  async ({ agent }) => NextResponse.json({ documents: listDocuments(agent.id) }),
  { gated: true },
);

export const POST = withAgent<RouteCtx<"/api/agents/[id]/documents">>(
  "editor",
  async ({ req, view }) => {
    // `?draft=`: the files are staged in that draft, served once it is published.
    const draftId = requestDraft(req, view.id);
    const upload = await readUploadForm(await readLimitedForm(req, 'the files in the field "files"'));
    const results = await ingestFiles(view, upload.files, upload, {}, draftId);
    const status = uploadStatus(results);
    if (status === 201) return NextResponse.json({ documents: results }, { status });
    const code: ErrorCode = status === 503 ? "vector_store_unavailable" : "rejected";
    const message = results.map((r) => `${r.filename}: ${r.message}`).join(" ");
    return NextResponse.json(
      { error: { code, message }, documents: results },
      { status, headers: status === 503 ? { "Retry-After": "5" } : undefined },
    );
  },
  { gated: true },
);
