import { NextResponse } from "next/server";
import { currentIdentity } from "@/lib/auth";
import { checkHealth } from "@/lib/retrieval/health";

export const dynamic = "force-dynamic";

/** Public so a process manager or load balancer can probe it; the details are for signed-in users. */
export async function GET() {
  const health = await checkHealth();
  const status = health.ok ? 200 : 503;
  if (!(await currentIdentity())) return NextResponse.json({ ok: health.ok }, { status });
  return NextResponse.json(health, { status });
}
