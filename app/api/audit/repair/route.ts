import { NextResponse } from "next/server";
import { route } from "@/lib/http/route";
import { repairIndex } from "@/lib/ingest/audit";

/** Fixes what the audit found that can be fixed, and reports what it did and what is left. */
export const POST = route(async () => NextResponse.json(await repairIndex()));
