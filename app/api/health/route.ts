import { NextResponse } from "next/server";
import { currentIdentity } from "@/lib/auth";
import { cachedHealth, checkHealth, indexBacklog, startingState } from "@/lib/index-upkeep/health";

export const dynamic = "force-dynamic";

/**
 * Public so a process manager or load balancer can probe it; the details are for signed-in users.
 * A check embeds a probe (a paid call with OpenAI) and queries Chroma: anonymous callers share
 * the cached one (at most one check per HEALTH_CACHE_MS), signed-in ones get a fresh check.
 * While the launcher seeds the demo agent of a first start it answers 503 "starting".
 */
export async function GET() {
  const who = await currentIdentity();
  // Answered at once, without a check: waiters poll until the first start's demo agent is whole.
  const starting = startingState();
  if (starting) {
    const body = who ? { ok: false, ...starting, index: indexBacklog() } : { ok: false, status: starting.status };
    return NextResponse.json(body, { status: 503, headers: { "Retry-After": "2" } });
  }
  const health = who ? await checkHealth() : await cachedHealth();
  const status = health.ok ? 200 : 503;
  if (!who) return NextResponse.json({ ok: health.ok }, { status });
  return NextResponse.json(health, { status });
}
