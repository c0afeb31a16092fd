import { NextResponse } from "next/server";
import { withAgent, type RouteCtx } from "@/lib/http/route";
import { invalid, notFound } from "@/lib/core/errors";
import { readLimitedForm } from "@/lib/http/body";
import { addToUploadJob, getUploadJob, MAX_UPLOAD_WAIT_S, readUploadFiles, waitForUploadJob } from "@/lib/ingest/uploads";

// Left out of the proxy (its POST carries files): both methods run the gate here.
export const GET = withAgent<RouteCtx<"/api/agents/[id]/uploads/[jobId]">>(
  "viewer",
  async ({ req, agent, params }) => {
    const query = new URL(req.url).searchParams;
    const which = query.get("files") ?? "all";
    if (which !== "all" && which !== "active") throw invalid(`files must be "all" or "active", not "${which}".`);
    // ?wait=S: answer once the upload has finished, or after S seconds.
    const wait = query.get("wait");
    if (wait !== null) {
      const seconds = /^\d+$/.test(wait) ? Number(wait) : NaN;
      if (!(seconds <= MAX_UPLOAD_WAIT_S))
        throw invalid(`wait must be a whole number of seconds from 0 to ${MAX_UPLOAD_WAIT_S}, not "${wait}".`);
      await waitForUploadJob(agent.id, params.jobId, seconds * 1000, req.signal);
    }
    const job = getUploadJob(agent.id, params.jobId, { active: which === "active" });
    if (!job) throw notFound(`Upload ${params.jobId}`);
    return NextResponse.json(job);
  },
  { gated: true },
);

/** Adds the next files of an upload to its job; answers when the job has room for more. */
export const POST = withAgent<RouteCtx<"/api/agents/[id]/uploads/[jobId]">>(
  "editor",
  async ({ req, agent, params }) => {
    if (!getUploadJob(agent.id, params.jobId)) throw notFound(`Upload ${params.jobId}`);
    const files = await readUploadFiles(await readLimitedForm(req, 'the files in the field "files"'));
    return NextResponse.json(await addToUploadJob(agent.id, params.jobId, files), { status: 202 });
  },
  { gated: true },
);
