import { NextResponse } from "next/server";
import { route } from "@/lib/api";
import { auditIndex } from "@/lib/audit";

export const dynamic = "force-dynamic";

/** SQLite compared with Chroma: orphan vectors, missing vectors, stuck documents. */
export const GET = route(async () => NextResponse.json(await auditIndex()));
