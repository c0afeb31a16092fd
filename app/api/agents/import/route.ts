import { NextResponse } from "next/server";
import { gatedRoute } from "@/lib/http/route";
import { importAgent } from "@/lib/transfer/import";

// The proxy leaves this path out (Next would buffer the body for it): an agent file can be far
// larger than one upload, so the handler gates the request itself and reads the body as it comes.
export const POST = gatedRoute("editor", async (req) => {
  const name = new URL(req.url).searchParams.get("name") ?? undefined;
  return NextResponse.json(await importAgent(req.body, { name }), { status: 201 });
});
