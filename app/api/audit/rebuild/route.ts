import { NextResponse } from "next/server";
import { route } from "@/lib/http/route";
import { embedder } from "@/lib/embeddings/configured";
import { rebuildIndex } from "@/lib/vector-store/rebuild";

/**
 * Rebuilds the vector index (every vector copied into a new collection that takes the old one's
 * place) and answers once it is done; `GET /api/health` shows its progress meanwhile.
 */
export const POST = route(async () => NextResponse.json({ rebuild: await rebuildIndex(embedder(), "asked for on Index health") }));
