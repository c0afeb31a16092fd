import "server-only";
import fs from "node:fs";
import path from "node:path";
import { env } from "../env.mjs";
import { db } from "../db/client";
import { readyAmong } from "../db/chunks";
import { embedder } from "../embeddings/configured";
import { chunkId, collectionFor, isVectorStoreUnavailable } from "../vector-store/client";
import { rebuildIndex } from "../vector-store/rebuild";
import { agentVectors, readdVectors, unreachableAmong, upsertChunks } from "../vector-store/chunks";
import { readVectorRuns } from "../db/chunk-vectors";
import { onChromaBack } from "../vector-store/fetch";
import { enqueueCleanup } from "./cleanup";
import { clearUnreachable, markUnreachable, unreachableCount, type ChunkKey } from "../db/unreachable";
import { parseChunkId } from "../vector-store/chunks";

const keysOf = (ids: string[]): ChunkKey[] => ids.map(parseChunkId).filter((k): k is ChunkKey => k !== null);

/**
 * Chroma killed while it writes can come back holding chunks that its index cannot return: they
 * are stored and counted, but no query finds them, so a ready document is never retrieved (seen
 * in the soak test: 9 of about 100 chunks after three kills). So after Chroma restarts from an
 * unclean exit (the launcher counts those in `<DATA_DIR>/chroma/unclean-restarts`), and after it
 * answers again following refused connections (any Chroma, CHROMA_URL too), every chunk of the
 * ready documents of the configured model is queried with its own vector, newest documents
 * first (the ones written around the crash), and those not returned are written again. It runs
 * in the background, one batch at a time; a new restart starts it over from the newest.
 * Documents written after such a restart were seen to be lost too (the soak's were written in
 * its last seconds, after its last kill), so for FOLLOW_MS afterwards each newly ready document
 * is checked the same way within seconds. Writing again does not always help (a soak run had 14
 * of 28 still lost right after): what stays lost is kept in `unreachable_chunks`, and every
 * query of its agent ranks those chunks by their exact distance (lib/db/unreachable.ts).
 */

/** Chunks checked per step. */
const BATCH_CHUNKS = 200;
/** Chroma replays its log when it starts; checking waits a little for it to settle. */
const START_DELAY_MS = 1_000;
/** How long after a restart new documents are checked as they become ready. */
export const FOLLOW_MS = 10 * 60_000;

export interface RecheckState {
  state: "idle" | "waiting" | "running";
  reason: string | null;
  checked: number;
  total: number;
  /** Chunks written again in this pass, and of those, how many a query still cannot return. */
  rewritten: number;
  still_unreachable: number;
  last_finished_at: string | null;
  /** Until when new documents are checked as they become ready (null: not following). */
  following_until: string | null;
  /** Ready documents not checked yet while following (written since the last pass). */
  unchecked_documents: number;
  /** Chunks written again since the server started, and chunks kept as unreachable now (all agents). */
  rewritten_since_start: number;
  kept_unreachable: number;
}

interface Holder {
  s: RecheckState;
  again: boolean;
  timer: NodeJS.Timeout | null;
  watch: NodeJS.Timeout | null;
  /** The newest document id a pass has covered. */
  through: number;
  /** The unclean-restart count the last rebuild of the index answered. */
  rebuiltFor: number;
  /** Looks the watch has taken, so a test can wait for the next ones instead of for time. */
  looks: number;
}
const holder = globalThis as unknown as { __kbRecheck?: Holder };
const current = () =>
  (holder.__kbRecheck ??= {
    s: { state: "idle", reason: null, checked: 0, total: 0, rewritten: 0, still_unreachable: 0, last_finished_at: null, following_until: null, unchecked_documents: 0, rewritten_since_start: 0, kept_unreachable: 0 },
    again: false,
    timer: null,
    watch: null,
    through: 0,
    rebuiltFor: 0,
    looks: 0,
  });

const following = (c: Holder) => c.s.following_until !== null && Date.parse(c.s.following_until) > Date.now();

export function recheckState(): RecheckState {
  const c = current();
  const unchecked = following(c) ? countNewerReady(embedder().model, c.through) : 0;
  return { ...c.s, unchecked_documents: unchecked, kept_unreachable: unreachableCount() };
}

/**
 * Asks for a pass (or, while one runs, for another from the newest documents once this batch is
 * done). After a restart, documents written next are checked too for a while (`follow`); after a
 * rebuild, which damaged nothing, the one pass is enough.
 */
export function requestRecheck(reason: string, { follow = true } = {}): void {
  const c = current();
  const followingUntil = follow ? new Date(Date.now() + FOLLOW_MS).toISOString() : c.s.following_until;
  if (c.s.state === "running") {
    c.again = true;
    c.through = 0; // from the newest again, over everything
    c.s = { ...c.s, reason, following_until: followingUntil };
    return;
  }
  if (c.s.state === "waiting") {
    c.through = 0; // the pass about to start covers everything
    return;
  }
  c.s = { ...c.s, state: "waiting", reason, following_until: followingUntil };
  c.through = 0;
  c.timer = setTimeout(() => void run(), START_DELAY_MS);
  c.timer.unref();
}

type Doc = { id: number; agent_id: number; chunk_count: number };

/** Ready documents of a model newer than `after`, newest first, with their chunk counts. */
function newerReady(model: string, after: number): Doc[] {
  return db()
    .prepare("SELECT id, agent_id, chunk_count FROM documents WHERE status = 'ready' AND embedding_model = ? AND id > ? ORDER BY id DESC")
    .all(model, after) as never;
}

function countNewerReady(model: string, after: number): number {
  return (db().prepare("SELECT COUNT(*) AS n FROM documents WHERE status = 'ready' AND embedding_model = ? AND id > ?").get(model, after) as { n: number }).n;
}

async function run(): Promise<void> {
  const c = current();
  c.s = { ...c.s, state: "running", checked: 0, total: 0, rewritten: 0, still_unreachable: 0 };
  const restarts = uncleanRestarts();
  try {
    do {
      c.again = false;
      // After an unclean exit the graph itself may be damaged around chunks that a query by
      // their own vector still returns, and later writes build on it: a rebuild replaces the
      // graph with one made from the stored vectors; the pass then checks the result.
      const n = uncleanRestarts();
      if (n !== null && n > Math.max(checkedRestarts(), c.rebuiltFor)) {
        try {
          await rebuildIndex(embedder(), "Chroma restarted after an unclean exit");
          c.rebuiltFor = n;
        } catch (err) {
          if (isVectorStoreUnavailable(err)) throw err; // Chroma went away again: the next restart asks anew
          // Otherwise logged by the rebuild; the old index stays, and the pass below repairs what it can.
        }
      }
      await pass(c, () => c.again);
    } while (c.again);
    if (restarts !== null && restarts > checkedRestarts()) markChecked(restarts);
    c.s.last_finished_at = new Date().toISOString();
    if (c.s.rewritten > 0) {
      console.log(
        `[kb-inspector] after Chroma came back (${c.s.reason}), ${c.s.rewritten} of ${c.s.checked} chunks could not be found by a query and were written again` +
          (c.s.still_unreachable ? `; ${c.s.still_unreachable} still cannot (see the audit)` : ""),
      );
    }
  } catch (err) {
    // Chroma went away again: the next restart or reconnection asks for a new pass.
    console.error("[kb-inspector] checking the index after Chroma came back stopped:", err instanceof Error ? err.message : err);
  } finally {
    c.s.state = "idle";
  }
}

type Collection = Awaited<ReturnType<typeof collectionFor>>;

/** The documents in steps of about BATCH_CHUNKS chunks, each step's chunk ids per agent. */
function* steps(docs: Doc[]): Generator<Map<number, string[]>> {
  for (let i = 0; i < docs.length; ) {
    const byAgent = new Map<number, string[]>();
    for (let n = 0; i < docs.length && (n === 0 || n + docs[i].chunk_count <= BATCH_CHUNKS); i++) {
      const d = docs[i];
      byAgent.set(d.agent_id, [...(byAgent.get(d.agent_id) ?? []), ...Array.from({ length: d.chunk_count }, (_, k) => chunkId(d.id, k))]);
      n += d.chunk_count;
    }
    yield byAgent;
  }
}

/**
 * One pass over the documents newer than what the last pass covered (all of them after a
 * restart): what the index cannot return is written again. Writing moves the graph and can cut
 * off a chunk checked before, so when anything was written, every chunk is queried once more
 * and what is lost then is kept as unreachable: searches rank those by their exact distance.
 */
async function pass(c: Holder, restarted: () => boolean): Promise<void> {
  const s = c.s;
  const model = embedder();
  const collection = await collectionFor(model);
  const docs = newerReady(model.model, c.through);
  const newest = docs[0]?.id ?? c.through;
  s.checked = 0;
  s.total = docs.reduce((n, d) => n + d.chunk_count, 0);
  for (const step of steps(docs)) {
    if (restarted()) return;
    for (const [agentId, ids] of step) {
      const stored = await agentVectors(collection, agentId, ids);
      // Chunks Chroma no longer holds at all (a write cut off by the kill): written from the app's copy.
      if (stored.length < ids.length) {
        const have = new Set(stored.map((v) => v.id));
        const n = await restoreMissing(collection, model.model, agentId, ids.filter((id) => !have.has(id)));
        s.rewritten += n;
        s.rewritten_since_start += n;
      }
      const lost = await unreachableAmong(collection, agentId, stored);
      if (lost.size > 0) {
        const n = await rewrite(collection, agentId, [...lost]);
        s.rewritten += n;
        s.rewritten_since_start += n;
      }
      s.checked += ids.length;
    }
    await new Promise<void>((r) => setImmediate(r)); // searches go first
  }
  s.still_unreachable = 0;
  // Nothing written: every chunk was returned, and kept ones among them are forgotten.
  const forget = s.rewritten === 0 && unreachableCount() > 0;
  for (const step of s.rewritten > 0 || forget ? steps(docs) : []) {
    for (const [agentId, ids] of step) {
      if (s.rewritten === 0) {
        clearUnreachable(keysOf(ids));
        continue;
      }
      if (restarted()) return;
      const stored = await agentVectors(collection, agentId, ids);
      const lost = await unreachableAmong(collection, agentId, stored);
      const ready = readyAmong(agentId, stored.map((v) => v.document_id));
      const kept = keysOf([...lost]).filter((k) => ready.has(k.document_id));
      markUnreachable(agentId, kept);
      clearUnreachable(keysOf(ids.filter((id) => !lost.has(id))));
      s.still_unreachable += kept.length;
    }
  }
  c.through = newest;
}

/** Writes lost chunks again (same id, embedding and metadata); how many were written. */
async function rewrite(collection: Collection, agentId: number, ids: string[]): Promise<number> {
  // Asked again, so that chunks of a document removed meanwhile are left alone.
  const again = await agentVectors(collection, agentId, ids);
  const lost = await unreachableAmong(collection, agentId, again);
  const ready = readyAmong(agentId, again.map((v) => v.document_id));
  const target = again.filter((v) => lost.has(v.id) && ready.has(v.document_id)).map((v) => v.id);
  if (target.length === 0) return 0;
  const written = await readdVectors(collection, agentId, target);
  // A document removed while its chunks were written again gets its removal queued once more.
  const stillReady = readyAmong(agentId, written.map((v) => v.document_id));
  for (const documentId of new Set(written.map((v) => v.document_id))) {
    if (!stillReady.has(documentId)) enqueueCleanup(agentId, documentId, 0, "removed while written again after a Chroma restart");
  }
  return written.length;
}

/**
 * Writes chunks of ready documents that Chroma does not hold from the app's copy of their
 * vectors (chunk_vectors), with the ingest's ids and metadata; how many were written. A chunk
 * without a copy stays missing, for the audit to report.
 */
async function restoreMissing(collection: Collection, model: string, agentId: number, ids: string[]): Promise<number> {
  const keys = keysOf(ids);
  const ready = readyAmong(agentId, keys.map((k) => k.document_id));
  let written = 0;
  for (const documentId of ready) {
    const wanted = new Set(keys.filter((k) => k.document_id === documentId).map((k) => k.chunk_index));
    const chunks: { index: number }[] = [];
    const vectors: number[][] = [];
    for (const r of readVectorRuns([documentId], model)) {
      for (let i = 0; i < r.count; i++) {
        if (!wanted.has(r.first_chunk + i)) continue;
        chunks.push({ index: r.first_chunk + i });
        vectors.push(Array.from(r.vectors.subarray(i * r.dimension, (i + 1) * r.dimension)));
      }
    }
    if (chunks.length === 0) continue;
    await upsertChunks(collection, { agentId, documentId }, chunks, vectors);
    written += chunks.length;
    // Removed while it was written: its removal is queued once more.
    if (!readyAmong(agentId, [documentId]).has(documentId)) enqueueCleanup(agentId, documentId, 0, "removed while written again after a Chroma restart");
  }
  return written;
}

// The launcher's count of Chroma starts after an unclean exit, and the count last checked.
const chromaDir = () => path.join(env().DATA_DIR, "chroma");
function uncleanRestarts(): number | null {
  try {
    return Number(fs.readFileSync(path.join(chromaDir(), "unclean-restarts"), "utf8").trim()) || 0;
  } catch {
    return null; // not the embedded Chroma, or it never restarted uncleanly
  }
}
function checkedRestarts(): number {
  try {
    return Number(fs.readFileSync(path.join(env().DATA_DIR, "unclean-restarts-checked"), "utf8").trim()) || 0;
  } catch {
    return 0;
  }
}
function markChecked(n: number): void {
  try {
    fs.writeFileSync(path.join(env().DATA_DIR, "unclean-restarts-checked"), `${n}\n`);
  } catch (err) {
    console.error("[kb-inspector] could not record the index check:", err instanceof Error ? err.message : err);
  }
}

/**
 * Starts the watch: now and every few seconds, whether the embedded Chroma restarted from an
 * unclean exit since the last finished pass; and at once when Chroma answers after refusing.
 */
export function watchChromaRestarts(everyMs = 3_000): void {
  const c = current();
  if (c.watch) return;
  let seen = checkedRestarts();
  const look = () => {
    const n = uncleanRestarts();
    if (n !== null && n > seen) {
      seen = n;
      requestRecheck("Chroma restarted after an unclean exit");
    } else if (c.s.state === "idle" && following(c) && countNewerReady(embedder().model, c.through) > 0) {
      // New documents since the last pass, or a pass after a restart that could not finish (Chroma
      // went away again): through is then still 0 and everything is checked.
      c.s.state = "waiting";
      void run();
    }
    c.looks = (c.looks ?? 0) + 1;
  };
  look();
  c.watch = setInterval(look, everyMs);
  c.watch.unref();
  onChromaBack(() => requestRecheck("Chroma answered again after refusing connections"));
}

/** How many looks the watch has finished (each asks for at most one pass, before it returns). */
export const restartWatchLooks = (): number => current().looks ?? 0;
