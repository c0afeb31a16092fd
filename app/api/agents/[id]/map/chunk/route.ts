import { NextResponse } from "next/server";
import { parseId, withAgent, type RouteCtx } from "@/lib/http/route";
import { notFound } from "@/lib/core/errors";
import { readyChunks } from "@/lib/db/chunks";

/** One ready chunk's text, by its document and index (`?document_id=&chunk_index=`): what the map shows on hover. */
export const GET = withAgent<RouteCtx<"/api/agents/[id]/map/chunk">>("viewer", async ({ req, agent }) => {
  const q = new URL(req.url).searchParams;
  const documentId = parseId(q.get("document_id") ?? "", "Document");
  const chunkIndex = Number(q.get("chunk_index"));
  const chunk =
    Number.isInteger(chunkIndex) && chunkIndex >= 0
      ? readyChunks(agent.id, [{ document_id: documentId, chunk_index: chunkIndex }])
      : new Map();
  const found = [...chunk.values()][0];
  if (!found) throw notFound(`Chunk ${chunkIndex} of document ${documentId}`);
  return NextResponse.json({ document_id: found.document_id, chunk_index: found.chunk_index, filename: found.filename, text: found.text });
});
