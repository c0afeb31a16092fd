import { NextResponse } from "next/server";
import { route } from "@/lib/http/route";
import { embedder } from "@/lib/embeddings/configured";
import { rebuildIndex, rebuildState } from "@/lib/index-upkeep/rebuild";
import { requestRecheck } from "@/lib/index-upkeep/after-restart";

/**
 * Starts a rebuild of the vector index (every vector copied into a new collection that takes the
 * old one's place), or joins the one running, and answers 202 at once: at 100,000 vectors it
 * takes minutes, longer than HTTP clients wait. `GET /api/health` shows its progress and outcome
 * under `index.rebuild`. A new graph can leave a chunk without a way in as any graph can, so the
 * index check then runs over every chunk, as after a restart: what a query by its own vector
 * cannot return is written again or ranked by its exact distance.
 */
export const POST = route("editor", async () => {
  void rebuildIndex(embedder(), "asked for on Index health")
    .then(() => requestRecheck("the index was rebuilt", { follow: false }))
    .catch(() => {}); // logged by the rebuild, and in /api/health under index.rebuild.last_error
  return NextResponse.json({ rebuild: rebuildState() }, { status: 202 });
});
