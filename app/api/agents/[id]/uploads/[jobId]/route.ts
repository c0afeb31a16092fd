import { NextResponse } from "next/server";
import { withAgent, type RouteCtx } from "@/lib/http/route";
import { notFound } from "@/lib/http/errors";
import { getUploadJob } from "@/lib/ingest/uploads";

export const GET = withAgent<RouteCtx<"/api/agents/[id]/uploads/[jobId]">>(async ({ agent, params }) => {
  const job = getUploadJob(agent.id, params.jobId);
  if (!job) throw notFound(`Upload ${params.jobId}`);
  return NextResponse.json(job);
});
