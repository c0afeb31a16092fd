import "server-only";
import type { Collection, Metadata } from "chromadb";
import type { Embedder } from "../embeddings";
import { AppError } from "../http/errors";
import { addRecordsNow, chroma, collectionFor, DISTANCE_SPACE, HNSW, isVectorStoreUnavailable, live, REBUILD_SUFFIX, replaceCollection, RETIRED_SUFFIX } from "./client";
import { pauseVectorWrites } from "./write-gate";

/**
 * Rebuilding the index: every vector of the app's collection is copied into a new collection,
 * which then takes the old one's name and place. Chroma's HNSW graph only ever grows: a deleted
 * vector stays a node in it, and a Chroma killed while it saves its index can come back with a
 * graph that no longer leads to some chunks, or leads to them badly, and builds every later
 * chunk onto that graph (lib/ingest/after-restart.ts). A copy is a new graph built from the
 * stored vectors alone. While it runs, searches go on against the old collection and changes to
 * vectors (uploads' writes, removals) wait; they resume against the new collection.
 */

/** Vectors read and written per step. */
const PAGE = 1_000;
/** How long the replaced collection is kept for requests that were already on their way to it. */
const RETIRE_AFTER_MS = 20_000;

export interface RebuildState {
  state: "idle" | "running";
  reason: string | null;
  copied: number;
  total: number;
  started_at: string | null;
  last_finished_at: string | null;
  /** Seconds the last rebuild took, with its vector count; null before the first. */
  last_seconds: number | null;
  last_vectors: number | null;
  last_error: string | null;
}

const holder = globalThis as unknown as {
  __kbRebuild?: { s: RebuildState; running: Promise<RebuildState> | null; retire: NodeJS.Timeout | null };
  __kbRebuilding?: boolean;
};
const current = () =>
  (holder.__kbRebuild ??= {
    s: { state: "idle", reason: null, copied: 0, total: 0, started_at: null, last_finished_at: null, last_seconds: null, last_vectors: null, last_error: null },
    running: null,
    retire: null,
  });

export const rebuildState = (): RebuildState => ({ ...current().s });

/**
 * Rebuilds the collection of `model`; a call while one runs joins it. Resolves with the state
 * once done; rejects when Chroma failed on the way, leaving the old collection in use as it was.
 */
export function rebuildIndex(model: Embedder, reason: string): Promise<RebuildState> {
  const c = current();
  if (!c.running) {
    c.running = rebuild(model, reason).finally(() => {
      c.running = null;
    });
  }
  return c.running;
}

async function rebuild(model: Embedder, reason: string): Promise<RebuildState> {
  const c = current();
  const started = performance.now();
  c.s = { ...c.s, state: "running", reason, copied: 0, total: 0, started_at: new Date().toISOString(), last_error: null };
  holder.__kbRebuilding = true;
  let resume: (() => void) | null = null;
  let copy: Collection | null = null;
  try {
    const old = live(await collectionFor(model));
    const name = old.name;
    await chroma()
      .deleteCollection({ name: name + REBUILD_SUFFIX })
      .catch(() => {}); // a copy left by a rebuild that stopped, if any
    // The collection a rebuild moments ago replaced, kept for requests on their way to it: this
    // rebuild needs its name.
    if (c.retire) clearTimeout(c.retire);
    c.retire = null;
    await chroma()
      .deleteCollection({ name: name + RETIRED_SUFFIX })
      .catch(() => {});
    resume = await pauseVectorWrites();
    c.s.total = await old.count();
    copy = await chroma().createCollection({
      name: name + REBUILD_SUFFIX,
      embeddingFunction: null,
      configuration: { hnsw: { space: DISTANCE_SPACE, ...HNSW } },
      metadata: old.metadata ?? undefined,
    });
    for (let offset = 0; ; offset += PAGE) {
      const page = await old.get({ include: ["embeddings", "metadatas"], limit: PAGE, offset });
      if (page.ids.length > 0) {
        await addRecordsNow(copy, { ids: page.ids, embeddings: page.embeddings as number[][], metadatas: page.metadatas as Metadata[] });
      }
      c.s.copied += page.ids.length;
      if (page.ids.length < PAGE) break;
    }
    const copied = await copy.count();
    if (copied !== c.s.total) throw new AppError("internal", `The copy holds ${copied} vectors where the index holds ${c.s.total}.`);
    // The swap: the old collection gives up its name, the copy takes it. Stopped between the
    // two, the next start gives the old one its name back (settleRebuild in client.ts).
    await old.modify({ name: name + RETIRED_SUFFIX });
    await copy.modify({ name });
    replaceCollection(old, copy, model.model);
    copy = null;
    const retire = (c.retire = setTimeout(() => {
      c.retire = null;
      chroma()
        .deleteCollection({ name: name + RETIRED_SUFFIX })
        .catch((err) => console.error("[kb-inspector] could not remove the replaced collection:", err instanceof Error ? err.message : err));
    }, RETIRE_AFTER_MS));
    retire.unref();
    const seconds = (performance.now() - started) / 1000;
    c.s = { ...c.s, state: "idle", last_finished_at: new Date().toISOString(), last_seconds: Number(seconds.toFixed(1)), last_vectors: copied };
    console.log(`[kb-inspector] rebuilt the vector index (${reason}): ${copied} vectors in ${seconds.toFixed(1)} s`);
    return { ...c.s };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    // Shown on Index health: the app's own words; Chroma's text goes to the server log only.
    const shown = isVectorStoreUnavailable(err) || err instanceof AppError ? message : "Chroma refused a step of the rebuild; the details are in the server log.";
    c.s = { ...c.s, state: "idle", last_error: shown };
    console.error(`[kb-inspector] rebuilding the vector index (${reason}) stopped: ${message}`);
    if (copy) {
      const name = copy.name;
      await chroma()
        .deleteCollection({ name })
        .catch(() => {}); // Chroma may be gone; the next start drops it
    }
    throw err;
  } finally {
    holder.__kbRebuilding = false;
    resume?.();
  }
}
