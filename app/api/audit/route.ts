import { NextResponse } from "next/server";
import { route } from "@/lib/http/route";
import { auditIndex } from "@/lib/ingest/audit";

export const dynamic = "force-dynamic";

/** SQLite compared with Chroma: orphan vectors, missing vectors, stuck documents. */
export const GET = route(async () => NextResponse.json(await auditIndex()));
