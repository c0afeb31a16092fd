import { NextResponse } from "next/server";
import { route } from "@/lib/http/route";
import { reachabilityRepair } from "@/lib/core/one-at-a-time";
import { repairIndex } from "@/lib/index-upkeep/audit";

/**
 * Fixes what the audit found that can be fixed, and reports what it did and what is left;
 * with `?reachability=1` it also writes again the chunks the index does not return (a
 * reachability audit before and after, under GET /api/audit's key: it waits for a running one).
 */
export const POST = route("editor", async (req) => {
  const reachability = new URL(req.url).searchParams.get("reachability") === "1";
  if (!reachability) return NextResponse.json(await repairIndex());
  return NextResponse.json(await reachabilityRepair(() => repairIndex({ reachability }), req.signal));
});
