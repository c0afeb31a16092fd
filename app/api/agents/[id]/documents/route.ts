import { NextResponse } from "next/server";
import { requestDraft, withAgent, type RouteCtx } from "@/lib/http/route";
import { AppError, type ErrorCode } from "@/lib/core/errors";
import { parseFilter } from "@/lib/core/filter";
import { assertKnownKeys, listedMatching } from "@/lib/db/metadata";
import { listDocuments } from "@/lib/db/documents";
import { readLimitedForm } from "@/lib/http/body";
import { ingestFiles, readUploadForm, uploadStatus } from "@/lib/ingest/uploads";

// The proxy leaves this path out (Next would buffer upload bodies for it), so both methods gate.
/** The agent's documents; `?filter=` (a metadata filter as JSON): only those it matches, and how many. */
export const GET = withAgent<RouteCtx<"/api/agents/[id]/documents">>(
  "viewer",
  async ({ req, agent }) => {
    const raw = new URL(req.url).searchParams.get("filter");
    if (!raw) return NextResponse.json({ documents: listDocuments(agent.id) });
    let where: unknown;
    try {
      where = JSON.parse(raw);
    } catch {
      throw new AppError("invalid_filter", `filter is not valid JSON: give an object, as {"product": "router"}.`);
    }
    const filter = parseFilter(where ?? {})!;
    assertKnownKeys(agent.id, filter);
    const matched = listedMatching(agent.id, filter);
    const documents = listDocuments(agent.id).filter((d) => matched.has(d.id));
    return NextResponse.json({ documents, filter: filter.where, filter_matched_documents: documents.length });
  },
  { gated: true },
);

export const POST = withAgent<RouteCtx<"/api/agents/[id]/documents">>(
  "editor",
  async ({ req, view }) => {
    // `?draft=`: the files are staged in that draft, served once it is published.
    const draftId = requestDraft(req, view.id);
    const upload = await readUploadForm(await readLimitedForm(req, 'the files in the field "files"'));
    const results = await ingestFiles(view, upload.files, upload, {}, draftId);
    const status = uploadStatus(results);
    if (status === 201) return NextResponse.json({ documents: results }, { status });
    const code: ErrorCode = status === 503 ? "vector_store_unavailable" : "rejected";
    const message = results.map((r) => `${r.filename}: ${r.message}`).join(" ");
    return NextResponse.json(
      { error: { code, message }, documents: results },
      { status, headers: status === 503 ? { "Retry-After": "5" } : undefined },
    );
  },
  { gated: true },
);
