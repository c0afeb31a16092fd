import { NextResponse } from "next/server";
import { route } from "@/lib/http/route";
import { auditIndex } from "@/lib/ingest/audit";

export const dynamic = "force-dynamic";

/**
 * SQLite compared with Chroma: orphan vectors, missing vectors, stuck documents; with
 * `?reachability=1` also chunks a query by their own vector does not return (slow: every chunk).
 */
export const GET = route(async (req) => {
  const reachability = new URL(req.url).searchParams.get("reachability") === "1";
  return NextResponse.json(await auditIndex({ reachability }));
});
