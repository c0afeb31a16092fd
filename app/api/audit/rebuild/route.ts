import { NextResponse } from "next/server";
import { route } from "@/lib/http/route";
import { embedder } from "@/lib/embeddings/configured";
import { rebuildIndex } from "@/lib/vector-store/rebuild";
import { requestRecheck } from "@/lib/ingest/after-restart";

/**
 * Rebuilds the vector index (every vector copied into a new collection that takes the old one's
 * place) and answers once it is done; `GET /api/health` shows its progress meanwhile. A new graph
 * can leave a chunk without a way in as any graph can, so the index check then runs over every
 * chunk, as after a restart: what a query by its own vector cannot return is written again or
 * ranked by its exact distance.
 */
export const POST = route(async () => {
  const rebuild = await rebuildIndex(embedder(), "asked for on Index health");
  requestRecheck("the index was rebuilt", { follow: false });
  return NextResponse.json({ rebuild });
});
