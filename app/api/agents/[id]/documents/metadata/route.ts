import { NextResponse } from "next/server";
import { readJson, withAgent, type RouteCtx } from "@/lib/http/route";
import { invalid } from "@/lib/core/errors";
import { BUILT_IN_KEYS, checkMetadataPatch } from "@/lib/core/metadata";
import { agentFacets, documentIdsOf, patchDocumentsMetadata } from "@/lib/db/metadata";

type Ctx = RouteCtx<"/api/agents/[id]/documents/metadata">;

/** The agent's metadata keys with their commonest values and how many ready documents have each (facets). */
export const GET = withAgent<Ctx>("viewer", async ({ agent }) =>
  NextResponse.json({ built_in: BUILT_IN_KEYS, facets: agentFacets(agent.id) }),
);

/**
 * Sets metadata on many documents at once: `{"document_ids": [...], "metadata": {"key": value | null}}`,
 * all of them or none (a 404 for a document the agent does not have).
 */
export const POST = withAgent<Ctx>("editor", async ({ req, agent }) => {
  const body = (await readJson(req)) as { document_ids?: unknown; metadata?: unknown } | null;
  if (!body || typeof body !== "object") throw invalid('Send {"document_ids": [...], "metadata": {...}}.');
  const ids = documentIdsOf(body.document_ids);
  const patch = checkMetadataPatch(body.metadata);
  if (Object.keys(patch).length === 0) throw invalid("metadata names no key to set or remove.");
  const changed = patchDocumentsMetadata(agent.id, ids, patch);
  return NextResponse.json({ documents: [...changed].map(([id, metadata]) => ({ document_id: id, metadata })) });
});
