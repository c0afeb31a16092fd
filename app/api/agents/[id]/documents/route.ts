import { NextResponse } from "next/server";
import { getAgent } from "@/lib/agents";
import { parseId, route } from "@/lib/api";
import { listDocuments } from "@/lib/documents";
import { AppError } from "@/lib/errors";
import { ingestFiles, readUploadForm, uploadStatus } from "@/lib/uploads";

type Ctx = { params: Promise<{ id: string }> };

export const GET = route(async (_req, { params }: Ctx) => {
  const id = parseId((await params).id, "Agent");
  getAgent(id);
  return NextResponse.json({ documents: listDocuments(id) });
});

export const POST = route(async (req, { params }: Ctx) => {
  const id = parseId((await params).id, "Agent");
  getAgent(id);
  let form: FormData;
  try {
    form = await req.formData();
  } catch {
    throw new AppError(400, "invalid_multipart", 'Send the files as multipart/form-data in the field "files".');
  }
  const upload = await readUploadForm(form);
  const results = await ingestFiles(id, upload.files, upload);
  const status = uploadStatus(results);
  const body =
    status === 201
      ? { documents: results }
      : { error: { code: "rejected", message: results.map((r) => `${r.filename}: ${r.message}`).join(" ") }, documents: results };
  return NextResponse.json(body, { status });
});
