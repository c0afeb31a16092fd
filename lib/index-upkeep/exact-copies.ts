import "server-only";
import { chunkIndexes } from "../db/chunks";
import { documentsWithoutVectors, documentsWithoutVectorsCount, replaceChunkVectors } from "../db/chunk-vectors";
import { embedder } from "../embeddings/configured";
import { agentVectors } from "../vector-store/chunks";
import { chunkId, collectionFor, isVectorStoreUnavailable } from "../vector-store/client";
import { vectorStoreUnavailable } from "../core/errors";
import type { CopyState } from "./reports";
import { indexUpkeepState } from "./state";

export type { CopyState } from "./reports";

/**
 * Copies into SQLite the vectors of ready documents that have none there (documents indexed
 * before exact ranking, or a copy lost with a restored database), from Chroma, the store of
 * record. Until its documents are copied an agent is served by Chroma's index alone. Runs after
 * start-up and whenever a search finds such an agent; one pass at a time.
 */

/** Documents read from Chroma per step. */
const DOCUMENTS_PER_STEP = 50;

const current = () => indexUpkeepState().exactCopies;

export const copyState = (): CopyState & { missing: number } => ({ ...current().state, missing: documentsWithoutVectorsCount() });

async function pass(): Promise<void> {
  const s = current().state;
  const model = embedder();
  const collection = await collectionFor(model);
  for (;;) {
    const skipped = new Set(s.skipped);
    const docs = documentsWithoutVectors(DOCUMENTS_PER_STEP + skipped.size, model.model).filter((d) => !skipped.has(d.id));
    if (docs.length === 0) return;
    for (const doc of docs.slice(0, DOCUMENTS_PER_STEP)) {
      const keys = chunkIndexes([doc.id]);
      const found = new Map(
        (
          await agentVectors(
            collection,
            doc.agent_id,
            keys.map((k) => chunkId(k.document_id, k.chunk_index)),
          )
        ).map((v) => [v.chunk_index, v]),
      );
      if (keys.length !== doc.chunk_count || keys.some((k) => !found.has(k.chunk_index))) {
        s.skipped.push(doc.id);
        continue;
      }
      replaceChunkVectors(
        doc.id,
        model.model,
        keys.map((k) => ({ index: k.chunk_index })),
        keys.map((k) => found.get(k.chunk_index)!.embedding),
      );
      s.copied++;
    }
  }
}

/**
 * Starts a pass unless one is running; resolves when it ends (a failure is kept in the state, not
 * thrown). With `retryMs`, a pass that failed (Chroma not up yet) is tried again that much later.
 */
export function copyMissingVectors(opts: { retryMs?: number } = {}): Promise<void> {
  const c = current();
  c.run ??= (async () => {
    c.state.running = true;
    c.state.error = null;
    try {
      await pass();
    } catch (err) {
      // Shown on Index health: the app's own words; Chroma's or the driver's go to the server log.
      c.state.error = isVectorStoreUnavailable(err)
        ? vectorStoreUnavailable().message
        : "Copying stopped on the server; the details are in its log.";
      if (!isVectorStoreUnavailable(err)) console.error("[kb-inspector] copying vectors for exact ranking failed:", err);
      if (opts.retryMs) {
        if (c.retry) clearTimeout(c.retry);
        c.retry = setTimeout(() => {
          c.retry = null;
          void copyMissingVectors(opts);
        }, opts.retryMs);
        c.retry.unref();
      }
    } finally {
      c.state.running = false;
      c.run = null;
    }
  })();
  return c.run;
}

/** Clears the pass waiting to be tried again (one under way finishes). */
export function stopCopyRetries(): void {
  const c = current();
  if (c.retry) clearTimeout(c.retry);
  c.retry = null;
}
