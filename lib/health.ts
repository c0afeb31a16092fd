import "server-only";
import { chroma, collectionFor } from "./chroma";
import { embeddingModelsInUse } from "./documents";
import { embedder } from "./embedder";
import { queryAgent } from "./vectors";

export interface Health {
  ok: boolean;
  chroma: { ok: boolean; error?: string };
  embedder: { ok: boolean; model?: string; dimension?: number; error?: string };
  /** Models of indexed documents that differ from the configured one. */
  stale_models: string[];
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Chroma answers, and one probe embedding plus a filtered query succeed. */
export async function checkHealth(): Promise<Health> {
  const health: Health = { ok: false, chroma: { ok: false }, embedder: { ok: false }, stale_models: [] };
  try {
    await chroma().heartbeat();
    health.chroma.ok = true;
  } catch (err) {
    health.chroma.error = `Chroma is not answering: ${message(err)}`;
  }
  try {
    const e = embedder();
    health.embedder.model = e.model;
    const [vector] = await e.embed(["health probe"]);
    health.embedder.dimension = vector.length;
    health.embedder.ok = true;
    health.stale_models = embeddingModelsInUse().filter((m) => m !== e.model);
    // An agent id no agent has: the probe exercises the filtered query and returns nothing.
    if (health.chroma.ok) await queryAgent(await collectionFor(e), -1, [vector], 1);
  } catch (err) {
    if (health.embedder.ok) {
      health.chroma.ok = false;
      health.chroma.error = `The probe query failed: ${message(err)}`;
    } else {
      health.embedder.error = `The embedder failed: ${message(err)}`;
    }
  }
  health.ok = health.chroma.ok && health.embedder.ok;
  return health;
}
