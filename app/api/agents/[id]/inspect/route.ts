import { NextResponse } from "next/server";
import { parseId, readJson, route } from "@/lib/http/route";
import { inspectQuery } from "@/lib/retrieval/inspect";
import { inspectSchema } from "@/lib/validations/inspect";

type Ctx = { params: Promise<{ id: string }> };

/** The inspector: the top_k results and the full-ranking diagnosis of one query, from one ranking. */
export const POST = route(async (req, { params }: Ctx) => {
  const id = parseId((await params).id, "Agent");
  const input = inspectSchema.parse(await readJson(req));
  return NextResponse.json(await inspectQuery(id, input.query, input.top_k, input.expected_document_id));
});
