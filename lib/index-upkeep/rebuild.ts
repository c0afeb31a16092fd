import "server-only";
import type { Collection, Metadata } from "../vector-store/client";
import type { Embedder } from "../embeddings/index";
import { AppError } from "../core/errors";
import {
  documentStillIndexed,
  documentsToRebuild,
  documentVectorRuns,
  storedVectorCount,
  vectorsToRebuild,
  type RebuildDocument,
} from "../db/chunk-vectors";
import {
  chroma,
  chunkId,
  collectionFor,
  DISTANCE_SPACE,
  HNSW,
  isVectorStoreUnavailable,
  live,
  REBUILD_SUFFIX,
  replaceCollection,
  RETIRED_SUFFIX,
  setRebuilding,
  writeRecords,
  type ChunkMetadata,
} from "../vector-store/client";
import { agentVectors, deleteDocumentVectors } from "../vector-store/chunks";
import { mirrorWrites } from "../vector-store/write-gate";
import type { RebuildState } from "./reports";
import { indexUpkeepState } from "./state";

export type { RebuildState } from "./reports";

/**
 * Rebuilding the index: a new collection is built from the stored vectors and then takes the
 * old one's name and place. Chroma's HNSW graph only ever grows: a deleted vector stays a node
 * in it, and a Chroma killed while it saves its index can come back with a graph that no longer
 * leads to some chunks, or leads to them badly, and builds every later chunk onto that graph
 * (lib/index-upkeep/after-restart.ts). A copy is a new graph built from the vectors alone.
 *
 * Nothing waits for it. The copy is written from the app's own copy of every vector (SQLite's
 * chunk_vectors, read by document id, so documents that come and go meanwhile cannot shift the
 * pages), from Chroma only for a document without one. From the moment the copy exists, every
 * change to the collection's vectors (uploads' writes, removals) is made to the copy as well
 * (lib/vector-store/write-gate.ts), so what the copy holds at the swap is what the collection
 * holds, less the vectors no document owns. Searches go on against the old collection until the
 * swap, then against the copy.
 */

/** Documents read per step; their vectors are written to the copy 1,000 at a time. */
const DOCUMENTS_PER_STEP = 50;
const WRITE_BATCH = 1_000;
/** How long the replaced collection is kept for requests that were already on their way to it. */
const RETIRE_AFTER_MS = 20_000;

const current = () => indexUpkeepState().rebuild;

export const rebuildState = (): RebuildState => ({ ...current().s });

export interface RebuildOptions {
  /** Awaited after each step of the copy with the vectors copied so far (a test acts while a rebuild is half-way). */
  afterStep?: (copied: number) => Promise<void>;
}

/**
 * Rebuilds the collection of `model`; a call while one runs joins it (and its options are the
 * running one's). Resolves with the state once done; rejects when Chroma failed on the way,
 * leaving the old collection in use as it was.
 */
export function rebuildIndex(model: Embedder, reason: string, options: RebuildOptions = {}): Promise<RebuildState> {
  const c = current();
  if (!c.running) {
    c.running = rebuild(model, reason, options).finally(() => {
      c.running = null;
    });
  }
  return c.running;
}

/**
 * Drops the timer that removes the collection the last rebuild replaced (the next rebuild, or the
 * next start, removes it instead).
 */
export function stopRetiringReplaced(): void {
  const c = current();
  if (c.retire) clearTimeout(c.retire);
  c.retire = null;
}

type Records = { ids: string[]; embeddings: number[][]; metadatas: Metadata[] };

/**
 * The vectors of one document as the copy must hold them, a page at a time (a stored run, or
 * WRITE_BATCH read from Chroma): the app's copy, or Chroma's for a document without a full one.
 */
async function* vectorsOf(old: Collection, model: string, doc: RebuildDocument): AsyncGenerator<Records> {
  const push = (p: Records, chunkIndex: number, embedding: number[]) => {
    p.ids.push(chunkId(doc.id, chunkIndex));
    p.embeddings.push(embedding);
    p.metadatas.push({
      agent_id: doc.agent_id,
      document_id: doc.id,
      chunk_index: chunkIndex,
    } satisfies ChunkMetadata as unknown as Metadata);
  };
  const page = (): Records => ({ ids: [], embeddings: [], metadatas: [] });
  // An indexing document's copy may be ahead of Chroma by the slice being added, never behind it.
  if (storedVectorCount(doc.id, model) >= doc.chunk_count || doc.status === "indexing" || doc.embedding_model !== model) {
    for (const r of documentVectorRuns(doc.id, model)) {
      const p = page();
      for (let i = 0; i < r.count; i++) push(p, r.first_chunk + i, Array.from(r.vectors.subarray(i * r.dimension, (i + 1) * r.dimension)));
      yield p;
    }
    return;
  }
  for (let from = 0; from < doc.chunk_count; from += WRITE_BATCH) {
    const ids = Array.from({ length: Math.min(WRITE_BATCH, doc.chunk_count - from) }, (_, k) => chunkId(doc.id, from + k));
    const p = page();
    for (const v of await agentVectors(old, doc.agent_id, ids)) push(p, v.chunk_index, v.embedding);
    yield p;
  }
}

async function rebuild(model: Embedder, reason: string, { afterStep }: RebuildOptions): Promise<RebuildState> {
  const c = current();
  const started = performance.now();
  c.s = { ...c.s, state: "running", reason, copied: 0, total: 0, started_at: new Date().toISOString(), last_error: null };
  setRebuilding(true);
  let mirror: ReturnType<typeof mirrorWrites> | null = null;
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
    copy = await chroma().createCollection({
      name: name + REBUILD_SUFFIX,
      embeddingFunction: null,
      configuration: { hnsw: { space: DISTANCE_SPACE, ...HNSW } },
      metadata: old.metadata ?? undefined,
    });
    // First the mirror, then the reads: a change made before it is in SQLite already (a document's
    // vectors are stored there before Chroma gets them, its row deleted before its vectors are).
    mirror = mirrorWrites(old, copy);
    c.s.total = vectorsToRebuild(model.model);
    let pending: Records & { docs: RebuildDocument[] } = { ids: [], embeddings: [], metadatas: [], docs: [] };
    const flush = async () => {
      if (pending.ids.length > 0) await writeRecords(copy!, pending, "upsert");
      // A document removed while its vectors were on their way: its removal may have reached the copy first.
      for (const doc of pending.docs) if (!documentStillIndexed(doc.id)) await deleteDocumentVectors(copy!, doc.agent_id, doc.id);
      c.s.copied += pending.ids.length;
      pending = { ids: [], embeddings: [], metadatas: [], docs: [] };
      await afterStep?.(c.s.copied);
    };
    for (let after = 0; ;) {
      const docs = documentsToRebuild(model.model, after, DOCUMENTS_PER_STEP);
      if (docs.length === 0) break;
      after = docs[docs.length - 1]!.id;
      for (const doc of docs) {
        for await (const records of vectorsOf(old, model.model, doc)) {
          pending.ids.push(...records.ids);
          pending.embeddings.push(...records.embeddings);
          pending.metadatas.push(...records.metadatas);
          if (pending.ids.length >= WRITE_BATCH) await flush();
        }
        // Checked at the flush that follows its last page: removed meanwhile, it leaves the copy.
        pending.docs.push(doc);
      }
    }
    await flush();
    if (mirror.missed())
      throw new AppError(
        "internal",
        "A change made during the copy did not reach it, so the copy was dropped; the index in use is unchanged.",
      );
    // The swap: the old collection gives up its name, the copy takes it. Stopped between the
    // two, the next start gives the old one its name back (settleRebuild in client.ts). The
    // mirror ends only once changes go to the copy itself, so none falls between the two.
    await old.modify({ name: name + RETIRED_SUFFIX });
    await copy.modify({ name });
    replaceCollection(old, copy, model.model);
    const late = mirror.end();
    mirror = null;
    if (late)
      console.error(`[kb-inspector] a change made during the index swap did not reach the new index (the audit will report it): ${late}`);
    const copied = await copy.count();
    copy = null;
    const retire = (c.retire = setTimeout(() => {
      c.retire = null;
      chroma()
        .deleteCollection({ name: name + RETIRED_SUFFIX })
        .catch((err) =>
          console.error("[kb-inspector] could not remove the replaced collection:", err instanceof Error ? err.message : err),
        );
    }, RETIRE_AFTER_MS));
    retire.unref();
    const seconds = (performance.now() - started) / 1000;
    c.s = {
      ...c.s,
      state: "idle",
      last_finished_at: new Date().toISOString(),
      last_seconds: Number(seconds.toFixed(1)),
      last_vectors: copied,
    };
    console.log(`[kb-inspector] rebuilt the vector index (${reason}): ${copied} vectors in ${seconds.toFixed(1)} s`);
    return { ...c.s };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    // Shown on Index health: the app's own words; Chroma's text goes to the server log only.
    const shown =
      isVectorStoreUnavailable(err) || err instanceof AppError
        ? message
        : "Chroma refused a step of the rebuild; the details are in the server log.";
    c.s = { ...c.s, state: "idle", last_error: shown };
    console.error(`[kb-inspector] rebuilding the vector index (${reason}) stopped: ${message}`);
    mirror?.end();
    if (copy) {
      const name = copy.name;
      await chroma()
        .deleteCollection({ name })
        .catch(() => {}); // Chroma may be gone; the next start drops it
    }
    throw err;
  } finally {
    setRebuilding(false);
  }
}
