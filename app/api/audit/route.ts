import { NextResponse } from "next/server";
import { route } from "@/lib/http/route";
import { auditIndex } from "@/lib/index-upkeep/audit";
import { oneAudit, oneReachabilityAudit } from "@/lib/core/one-at-a-time";

export const dynamic = "force-dynamic";

/**
 * SQLite compared with Chroma: orphan vectors, missing vectors, stuck documents; with
 * `?reachability=1` also chunks a query by their own vector does not return. Both read every
 * vector, so each kind runs one at a time across the app (409 naming the one running); a repair
 * with reachability waits for a running audit, and audits are refused while it waits.
 */
export const GET = route("viewer", async (req) => {
  const reachability = new URL(req.url).searchParams.get("reachability") === "1";
  if (!reachability) return NextResponse.json(await oneAudit(() => auditIndex()));
  return NextResponse.json(await oneReachabilityAudit(() => auditIndex({ reachability })));
});
