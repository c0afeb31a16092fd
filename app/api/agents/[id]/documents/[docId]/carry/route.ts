import { NextResponse } from "next/server";
import { parseId, withAgent, type RouteCtx } from "@/lib/http/route";
import { chunkText } from "@/lib/core/chunking";
import { getDocument } from "@/lib/db/documents";
import { CARRY_POLICY, carryCuration, isCurated } from "@/lib/ingest/carry";
import { curationOf } from "@/lib/ingest/version-state";
import { chunkSettingsSchema } from "@/lib/validations/upload";

/**
 * What a re-chunk with the given settings would do to the document's curation, before it runs:
 * `carried` and `notes` (what would be kept only as a note), with the policy they follow.
 */
export const GET = withAgent<RouteCtx<"/api/agents/[id]/documents/[docId]/carry">>("viewer", async ({ req, agent, params }) => {
  const doc = getDocument(agent.id, parseId(params.docId, "Document"));
  const query = Object.fromEntries(new URL(req.url).searchParams);
  const settings = chunkSettingsSchema.parse({
    chunk_size: query.chunk_size ?? doc.chunk_size,
    chunk_overlap: query.chunk_overlap ?? doc.chunk_overlap,
    chunk_strategy: query.chunk_strategy ?? doc.chunk_strategy,
  });
  const state = curationOf(doc);
  if (!isCurated(state)) return NextResponse.json({ curated: false, carried: [], notes: [], policy: CARRY_POLICY });
  const chunks = chunkText(doc.text, settings.chunk_size, settings.chunk_overlap, settings.chunk_strategy);
  const { carried, notes } = carryCuration(state, chunks);
  return NextResponse.json({ curated: true, carried, notes, policy: CARRY_POLICY });
});
