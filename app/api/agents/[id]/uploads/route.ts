import { NextResponse } from "next/server";
import { requestDraft, withAgent, type RouteCtx } from "@/lib/http/route";
import { readLimitedForm } from "@/lib/http/body";
import { expectedFilesField, readUploadForm, startUploadJob } from "@/lib/ingest/uploads";

// Left out of the proxy like the other upload routes (Next would buffer the body first): gated here.
// `?draft=`: the job's files (of this request and the ones that follow) are staged in that draft.
export const POST = withAgent<RouteCtx<"/api/agents/[id]/uploads">>(
  "editor",
  async ({ req, agent }) => {
    const draftId = requestDraft(req, agent.id);
    const form = await readLimitedForm(req, 'the files in the field "files"');
    const upload = await readUploadForm(form);
    const job = startUploadJob(agent, upload.files, upload, expectedFilesField(form, upload.files.length), draftId);
    return NextResponse.json(job, { status: 202, headers: { Location: `/api/agents/${agent.id}/uploads/${job.id}` } });
  },
  { gated: true },
);
