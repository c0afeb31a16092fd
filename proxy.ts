// Runs before every page, route handler and server action (Node.js runtime): refuses unknown
// Host headers and cross-origin writes even with sign-in off, then, with ADMIN_PASSWORD set,
// requires a session or a bearer token and the role a route handler needs (lib/auth/gate.ts).
// It is the first gate, not the only one: each route handler checks the role it declares too.
import { NextResponse, type NextRequest } from "next/server";
import { gateRequest } from "@/lib/auth/gate";
import { SMALL_BODY_BYTES } from "@/lib/env.mjs";
import { ERROR_STATUS } from "@/lib/core/errors";

export async function proxy(req: NextRequest) {
  // Next hands the proxy at most SMALL_BODY_BYTES of a body (next.config.ts) and cuts the rest;
  // a body declared larger is refused whole rather than passed on cut short.
  if (Number(req.headers.get("content-length") ?? 0) > SMALL_BODY_BYTES) {
    return NextResponse.json(
      {
        error: {
          code: "request_too_large",
          message: `The request body is larger than ${SMALL_BODY_BYTES / (1024 * 1024)} MB, the most this address accepts. Files go to /api/agents/{id}/uploads or /api/agents/{id}/documents.`,
        },
      },
      { status: ERROR_STATUS.request_too_large },
    );
  }
  return (await gateRequest(req)) ?? NextResponse.next();
}

export const config = {
  // Static build output and the app icons need no checks. The upload routes (and an agent's import) are left out because Next
  // reads a whole request body into memory before a proxy answers; they run the same gate
  // themselves before reading a byte of it (see gatedRoute in lib/http/route.ts). The agent's
  // search (and its alias without /api) runs the gate itself too: a pass through the proxy
  // costs every call a few milliseconds, which is most of what the app adds to Chroma's time.
  matcher: [
    "/((?!_next/static/|_next/image|favicon.ico|icon.svg$|api/agents/[^/]+/documents$|api/agents/[^/]+/documents/preview$|api/agents/[^/]+/uploads(?:/[^/]+)?$|api/agents/import$|(?:api/)?agents/[^/]+/documents/search$).*)",
  ],
};
