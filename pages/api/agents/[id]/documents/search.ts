// POST /api/agents/{id}/documents/search (and its alias /agents/{id}/documents/search): the
// agent's document_search tool. Served from the pages router because it is the app's hot path:
// a pages API route adds much less server time per request than an app route handler does
// (see serveFromNode). The handler itself is the same web-standard one as elsewhere.
import { NextResponse } from "next/server";
import { readJson, withAgent, type RouteCtx } from "@/lib/http/route";
import { serveFromNode } from "@/lib/http/node-handler";
import { filteredSearchTool } from "@/lib/retrieval/retrieve";
import { parseFilter } from "@/lib/core/filter";
import { searchSchema } from "@/lib/validations/search";

export const POST = withAgent<RouteCtx<"/api/agents/[id]/documents/search">>(
  "viewer",
  async ({ req, view }) => {
    const { query, top_k, filter } = searchSchema.parse(await readJson(req));
    const found = await filteredSearchTool(view, query, top_k, parseFilter(filter));
    // no-transform: Next would gzip these few kilobytes, which costs the caller more time than
    // it saves on any link an agent's search runs over (docs/performance.md, 'The search
    // endpoint is cheap to reach').
    return NextResponse.json({ query, ...found }, { headers: { "Cache-Control": "no-store, no-transform" } });
  },
  { gated: true },
);

/** A query and top_k need a few hundred bytes; this leaves room for long pasted questions. */
const MAX_SEARCH_BODY_BYTES = 256 * 1024;

export default serveFromNode({ POST }, { maxBodyBytes: MAX_SEARCH_BODY_BYTES });

// The body is read by serveFromNode, with its own limit, and handed to the handler as is.
export const config = { api: { bodyParser: false } };
