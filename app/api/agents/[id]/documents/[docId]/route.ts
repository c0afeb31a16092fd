import { NextResponse } from "next/server";
import { parseId, route } from "@/lib/http/route";
import { chunkText } from "@/lib/ingest/chunking";
import { getDocument } from "@/lib/db/documents";
import { removeDocument } from "@/lib/ingest/remove";

type Ctx = { params: Promise<{ id: string; docId: string }> };

export const GET = route(async (_req, { params }: Ctx) => {
  const p = await params;
  const doc = getDocument(parseId(p.id, "Agent"), parseId(p.docId, "Document"));
  const chunks = doc.status === "ready" ? chunkText(doc.text, doc.chunk_size, doc.chunk_overlap) : [];
  return NextResponse.json({ ...doc, chunks });
});

export const DELETE = route(async (_req, { params }: Ctx) => {
  const p = await params;
  await removeDocument(parseId(p.id, "Agent"), parseId(p.docId, "Document"));
  return new NextResponse(null, { status: 204 });
});
