import { NextResponse } from "next/server";
import { getAgent } from "@/lib/db/agents";
import { gatedRoute, parseId } from "@/lib/http/route";
import { listDocuments } from "@/lib/db/documents";
import { readLimitedForm } from "@/lib/http/body";
import { ingestFiles, readUploadForm, uploadStatus } from "@/lib/ingest/uploads";

type Ctx = { params: Promise<{ id: string }> };

export const GET = gatedRoute(async (_req, { params }: Ctx) => {
  const id = parseId((await params).id, "Agent");
  getAgent(id);
  return NextResponse.json({ documents: listDocuments(id) });
});

export const POST = gatedRoute(async (req, { params }: Ctx) => {
  const id = parseId((await params).id, "Agent");
  getAgent(id);
  const upload = await readUploadForm(await readLimitedForm(req, 'the files in the field "files"'));
  const results = await ingestFiles(id, upload.files, upload);
  const status = uploadStatus(results);
  const body =
    status === 201
      ? { documents: results }
      : {
          error: { code: status === 503 ? "vector_store_unavailable" : "rejected", message: results.map((r) => `${r.filename}: ${r.message}`).join(" ") },
          documents: results,
        };
  return NextResponse.json(body, { status, headers: status === 503 ? { "Retry-After": "5" } : undefined });
});
