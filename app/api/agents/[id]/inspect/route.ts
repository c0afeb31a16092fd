import { NextResponse } from "next/server";
import { parseId, readJson, route } from "@/lib/api";
import { inspectQuery } from "@/lib/inspect";
import { inspectSchema } from "@/lib/validations/inspect";

type Ctx = { params: Promise<{ id: string }> };

/** The inspector's diagnosis: full ranking figures for one query and an expected document. */
export const POST = route(async (req, { params }: Ctx) => {
  const id = parseId((await params).id, "Agent");
  const input = inspectSchema.parse(await readJson(req));
  return NextResponse.json(await inspectQuery(id, input.query, input.expected_document_id));
});
