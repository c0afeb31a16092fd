import { NextResponse } from "next/server";
import { route } from "@/lib/http/route";
import { auditIndex } from "@/lib/index-upkeep/audit";
import { oneReachabilityAudit } from "@/lib/http/one-at-a-time";

export const dynamic = "force-dynamic";

/**
 * SQLite compared with Chroma: orphan vectors, missing vectors, stuck documents; with
 * `?reachability=1` also chunks a query by their own vector does not return (slow: every chunk,
 * so one such audit at a time across the app; 409 while one runs).
 */
export const GET = route("viewer", async (req) => {
  const reachability = new URL(req.url).searchParams.get("reachability") === "1";
  if (!reachability) return NextResponse.json(await auditIndex());
  return NextResponse.json(await oneReachabilityAudit(() => auditIndex({ reachability })));
});
