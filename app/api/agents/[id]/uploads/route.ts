import { NextResponse } from "next/server";
import { withAgent, type RouteCtx } from "@/lib/http/route";
import { readLimitedForm } from "@/lib/http/body";
import { expectedFilesField, readUploadForm, startUploadJob } from "@/lib/ingest/uploads";

// Left out of the proxy like the other upload routes (Next would buffer the body first): gated here.
export const POST = withAgent<RouteCtx<"/api/agents/[id]/uploads">>(
  "editor",
  async ({ req, agent }) => {
    const form = await readLimitedForm(req, 'the files in the field "files"');
    const upload = await readUploadForm(form);
    const job = startUploadJob(agent, upload.files, upload, expectedFilesField(form, upload.files.length));
    return NextResponse.json(job, { status: 202, headers: { Location: `/api/agents/${agent.id}/uploads/${job.id}` } });
  },
  { gated: true },
);
