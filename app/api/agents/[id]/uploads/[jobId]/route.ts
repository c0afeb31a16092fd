import { NextResponse } from "next/server";
import { parseId, route } from "@/lib/http/route";
import { notFound } from "@/lib/http/errors";
import { getUploadJob } from "@/lib/ingest/uploads";

type Ctx = { params: Promise<{ id: string; jobId: string }> };

export const GET = route(async (_req, { params }: Ctx) => {
  const p = await params;
  const job = getUploadJob(parseId(p.id, "Agent"), p.jobId);
  if (!job) throw notFound(`Upload ${p.jobId}`);
  return NextResponse.json(job);
});
