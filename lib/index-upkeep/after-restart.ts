import "server-only";
import fs from "node:fs";
import path from "node:path";
import { env } from "../env.mjs";
import { readyAmong } from "../db/chunks";
import {
  clearSuspects,
  fullCheck,
  fullCheckAdvance,
  fullCheckDone,
  fullCheckStep,
  readySuspectCount,
  readySuspects,
  startFullCheck,
  suspectDocumentsOf,
  suspectNewest,
  suspectWritesUntil,
  suspectWritesUntilNow,
  type SuspectDocument,
} from "../db/index-check";
import { embedder } from "../embeddings/configured";
import { chunkId, collectionFor, collectionName, isVectorStoreUnavailable } from "../vector-store/client";
import { agentVectors, unreachableAmong, type OwnVectorCheck } from "../vector-store/chunks";
import { documentVectorRuns } from "../db/chunk-vectors";
import { onChromaBack } from "../vector-store/fetch";
import { queueCleanup } from "../ingest/cleanup";
import { clearUnreachable, markUnreachable, unreachableCount, type ChunkKey } from "../db/unreachable";
import { parseChunkId } from "../vector-store/chunks";
import { searchesActive, searchPause } from "../vector-store/batched-add";
import { agentIdScope, scopeRefused, type IdScope } from "../retrieval/id-scope";
import { sweepOrphans, sweepOrphansSoon } from "./orphans";
import { readdVectors, upsertNotedChunks } from "./write-again";
import { rebuildIndex } from "./rebuild";
import type { FullCheckState, RecheckState } from "./reports";
import { indexUpkeepState, type Recheck } from "./state";

export type { FullCheckState, RecheckState } from "./reports";

const keysOf = (ids: string[]): ChunkKey[] => ids.map(parseChunkId).filter((k): k is ChunkKey => k !== null);

/**
 * Chroma killed while it writes can come back holding chunks that its index cannot return: they
 * are stored and counted, but no query finds them, so a ready document is never retrieved (seen
 * in the soak test after Chroma was killed: docs/performance.md, 'Figures behind the code's
 * choices'). What a crash can damage is what Chroma had not yet made durable: it saves its
 * graph after every `sync_threshold` additions (lib/vector-store/client.ts) and replays the rest
 * from its log when it starts. So the check follows the damage, not the size of the index:
 *
 * 1. At once, when Chroma restarted from an unclean exit (the launcher counts those in
 *    `<DATA_DIR>/chroma/unclean-restarts`) or answers again after refusing connections (any
 *    Chroma, CHROMA_URL too), the documents of the newest writes, WINDOW_CHUNKS chunks of them,
 *    become suspect (lib/db/index-check.ts): every query of their agent ranks their chunks by
 *    their exact distance from the app's copy, so searches return every acknowledged document
 *    from the first one on. For FOLLOW_MS afterwards, every document written becomes suspect too
 *    (documents written right after a restart were seen to be lost as well).
 * 2. The suspect documents' chunks are queried with their own vectors, newest first, and those
 *    not returned are written again; what stays lost is kept in `unreachable_chunks`, which
 *    every query of its agent ranks exactly (lib/db/unreachable.ts). Checked documents stop
 *    being suspect. When this finds damage after an unclean exit (more than REBUILD_SHARE of the
 *    chunks checked written again), the graph itself is rebuilt
 *    from the stored vectors (lib/index-upkeep/rebuild.ts; writes go on meanwhile) and the
 *    window is checked again.
 * 3. The rest of the index is then checked the same way in the background, FULL_CHECK_CHUNKS a
 *    step, from where it was across app restarts (the place is in SQLite): a safety net that
 *    holds up nothing. It gives way to searches before each Chroma request and rests
 *    FULL_CHECK_REST of each step's time (see `Background` for how it asks Chroma).
 */

/** Chunks of the newest writes suspected after a crash: several times what Chroma may not have saved yet. */
export const WINDOW_CHUNKS = 5_000;
/** Chunks checked per step. */
const BATCH_CHUNKS = 200;
/** Chroma replays its log when it starts; checking waits a little for it to settle. */
const START_DELAY_MS = 1_000;
/**
 * The share of checked chunks that must have been written again for a rebuild of the whole index
 * after an unclean exit. A healthy graph loses a node now and then (1 of 5,001 recent chunks at
 * 1,000,000 in the bench), which writing it again repairs; a rebuild copies every vector (263 s at
 * 110,000, some ten times that at 1,000,000) and is for damage past that: 9 of about 100 chunks in the soak test.
 */
export const REBUILD_SHARE = 0.002;
/** Whether a check that wrote `rewritten` of `checked` chunks again found damage enough for a rebuild. */
export const damageCallsForRebuild = (rewritten: number, checked: number): boolean => rewritten > 0 && rewritten >= REBUILD_SHARE * checked;
/** A sweep for orphans that Chroma refused is tried again after this long. */
const ORPHAN_RETRY_MS = 5_000;
/** How long after a restart new documents are suspect until checked. */
export const FOLLOW_MS = 10 * 60_000;
/** Chunks the full check reads per step (its place in SQLite moves once a step). */
const FULL_CHECK_CHUNKS = 1_000;
/**
 * Requests the full check has in flight at once when nobody has searched for FULL_CHECK_QUIET_MS
 * (one otherwise). Its cost is Chroma's graph search, a query per chunk (3 to 5 ms at 100,000
 * chunks on this two-core machine, 2.4 ms at 1,000,000), which one request at a time holds to one
 * core: under 300 chunks a second. A search that comes while two are in flight shares both cores
 * with them (p90 422 ms against 184 with nothing running, searches every 3 s at 100,000 chunks;
 * 123 ms with one in flight after searches).
 */
const FULL_CHECK_STREAMS = 2;
const FULL_CHECK_QUIET_MS = 10_000;
/**
 * The full check rests this many times as long as each step took: searches no longer need the
 * rest (it waits for a pause in them before each request, see above), so it only leaves Chroma to
 * other work now and then (uploads do not give way to it).
 */
const FULL_CHECK_REST = 0.1;
/**
 * Before each Chroma request the full check waits for a pause in searches, this long at most in
 * a step (then the step goes on): its queries share Chroma's two cores with theirs (a search of a
 * large agent took 1.4 to 2 s beside it at 1,000,000 chunks, 1.1 s without).
 */
const FULL_CHECK_MAX_WAIT_MS = 30_000;

const current = (): Recheck => indexUpkeepState().recheck;

const recheckWindow = (): number => current().window ?? WINDOW_CHUNKS;

/** Tests: the window of newest chunks suspected after a crash (undefined: WINDOW_CHUNKS). */
export function useRecheckWindow(chunks: number | undefined): void {
  current().window = chunks;
}

export function recheckState(): RecheckState {
  const c = current();
  const f = fullCheck();
  const full: FullCheckState = {
    state: c.fullRunning ? "running" : f.below !== null ? "pending" : "idle",
    checked: f.checked,
    total: f.total,
    rewritten: c.fullRewritten,
    started_at: f.started_at,
    finished_at: f.finished_at,
  };
  return {
    ...c.s,
    following_until: suspectWritesUntilNow(),
    unchecked_documents: readySuspectCount(embedder().model),
    kept_unreachable: unreachableCount(),
    full,
  };
}

/**
 * Asks for a check: the newest documents become suspect at once, and a pass over the suspect
 * documents starts (or, while one runs, another once this batch is done). After a restart,
 * documents written next become suspect too for a while (`follow`); `full` (the default) also
 * starts the paced check of every chunk over.
 */
export function requestRecheck(reason: string, { follow = true, full = true } = {}): void {
  const c = current();
  const e = embedder();
  const collection = collectionName(e.model, e.dimension);
  const older = suspectNewest(e.model, collection, recheckWindow());
  if (follow) suspectWritesUntil(new Date(Date.now() + FOLLOW_MS).toISOString(), collection);
  if (full) startFullCheck(e.model, older);
  c.s = { ...c.s, reason };
  if (c.s.state === "running") {
    c.again = true;
    return;
  }
  if (c.s.state === "waiting") return;
  c.s.state = "waiting";
  c.timer = setTimeout(() => void run(), START_DELAY_MS);
  c.timer.unref();
}

type Doc = SuspectDocument;

async function run(): Promise<void> {
  const c = current();
  c.s = { ...c.s, state: "running", checked: 0, total: 0, rewritten: 0, still_unreachable: 0 };
  const restarts = uncleanRestarts();
  try {
    do {
      c.again = false;
      const model = embedder();
      const docs = readySuspects(model.model);
      c.s.checked = 0;
      c.s.still_unreachable = 0;
      c.s.total = docs.reduce((n, d) => n + d.chunk_count, 0);
      const found = await pass(c, docs, () => c.again, { counted: true });
      if (found === null) continue; // asked again meanwhile: from the newest
      clearSuspects(docs.map((d) => d.id));
      // Damage after an unclean exit: the graph around the lost chunks may be damaged too, and
      // later writes would build on it. A rebuild replaces it with one made from the stored
      // vectors (writes go on meanwhile); the window is then checked again, and the full check
      // starts over on the new graph.
      const n = uncleanRestarts();
      if (damageCallsForRebuild(found.rewritten, c.s.checked) && n !== null && n > Math.max(checkedRestarts(), c.rebuiltFor)) {
        try {
          await rebuildIndex(model, "Chroma restarted after an unclean exit");
          c.rebuiltFor = n;
          startFullCheck(model.model, suspectNewest(model.model, collectionName(model.model, model.dimension), recheckWindow()));
          c.again = true;
        } catch (err) {
          if (isVectorStoreUnavailable(err)) throw err; // Chroma went away again: the next restart asks anew
          // Otherwise logged by the rebuild; the old index stays, with what the pass repaired.
        }
      }
    } while (c.again);
    // What the pass and the rebuild wrote, and removals made meanwhile, are swept for orphans.
    await sweepOrphans().catch((err) => {
      console.error("[kb-inspector] orphan sweep after the index check must wait:", err instanceof Error ? err.message : err);
      sweepOrphansSoon(ORPHAN_RETRY_MS);
    });
    if (restarts !== null && restarts > checkedRestarts()) markChecked(restarts);
    c.s.last_finished_at = new Date().toISOString();
    if (c.s.rewritten > 0) {
      console.log(
        `[kb-inspector] after Chroma came back (${c.s.reason}), ${c.s.rewritten} of ${c.s.checked} recently written chunks could not be found by a query and were written again` +
          (c.s.still_unreachable ? `; ${c.s.still_unreachable} still cannot (see the audit)` : ""),
      );
    }
  } catch (err) {
    // Chroma went away again: the next restart or reconnection asks for a new pass.
    console.error("[kb-inspector] checking the index after Chroma came back stopped:", err instanceof Error ? err.message : err);
  } finally {
    c.s.state = "idle";
  }
  void runFull();
}

/**
 * The paced check of every ready chunk, newest documents first, from the place kept in SQLite.
 * It gives way to the suspect documents' pass: it stops when one is asked for, and the pass
 * starts it again when it is done.
 */
async function runFull(): Promise<void> {
  const c = current();
  if (c.fullRunning) return;
  c.fullRunning = true;
  try {
    const paces = new Map<number, { msPerQuery?: number }>();
    const searches = { seenAt: Number.NEGATIVE_INFINITY };
    for (;;) {
      const f = fullCheck();
      const model = embedder();
      if (f.below === null) return;
      if (c.s.state !== "idle" || readySuspectCount(model.model) > 0) return;
      if (f.model !== model.model) {
        fullCheckDone(); // the model changed: its collection is checked by a new request
        return;
      }
      const between = stepPauses(searches);
      if (fullCheckStep(model.model, f.below, 1).length > 0) {
        await between();
        if (c.s.state !== "idle" || readySuspectCount(model.model) > 0) return; // a pass was asked for meanwhile
      }
      const docs = fullCheckStep(model.model, f.below, FULL_CHECK_CHUNKS);
      if (docs.length === 0) {
        fullCheckDone();
        return;
      }
      const started = performance.now();
      const found = await pass(c, docs, () => c.s.state !== "idle", {
        onWritten: (n) => (c.fullRewritten += n),
        background: {
          model: model.model,
          between,
          streams: () => (performance.now() - searches.seenAt >= FULL_CHECK_QUIET_MS ? FULL_CHECK_STREAMS : 1),
          paces,
        },
      });
      if (found === null) return;
      fullCheckAdvance(
        Math.min(...docs.map((d) => d.id)),
        docs.reduce((n, d) => n + d.chunk_count, 0),
      );
      await new Promise<void>((r) => setTimeout(r, (performance.now() - started) * FULL_CHECK_REST).unref());
    }
  } catch (err) {
    // Chroma went away: the place is kept, and the watch takes it up again.
    console.error("[kb-inspector] the full check of the index stopped:", err instanceof Error ? err.message : err);
  } finally {
    c.fullRunning = false;
  }
}

/**
 * What a step of the full check waits with before each Chroma request: a pause in searches, up
 * to FULL_CHECK_MAX_WAIT_MS in all; once that ran out, the rest of the step goes on unpaused.
 * Searches it sees are noted in `searches`.
 */
function stepPauses(searches: { seenAt: number }): () => Promise<void> {
  let spent = false;
  return async () => {
    if (!searchesActive()) return;
    searches.seenAt = performance.now();
    if (spent) return;
    await searchPause(FULL_CHECK_MAX_WAIT_MS);
    spent = searchesActive();
  };
}

type Collection = Awaited<ReturnType<typeof collectionFor>>;

/** The documents in steps of about `chunks` chunks, each step's chunk ids per agent. */
function* steps(docs: Doc[], chunks: number): Generator<Map<number, string[]>> {
  for (let i = 0; i < docs.length;) {
    const byAgent = new Map<number, string[]>();
    for (let n = 0; i < docs.length && (n === 0 || n + docs[i].chunk_count <= chunks); i++) {
      const d = docs[i];
      const ids = byAgent.get(d.agent_id) ?? [];
      for (let k = 0; k < d.chunk_count; k++) ids.push(chunkId(d.id, k));
      byAgent.set(d.agent_id, ids);
      n += d.chunk_count;
    }
    yield byAgent;
  }
}

/**
 * How the full check asks Chroma (the suspect pass asks as before: the agent filter, 200 chunks a
 * step, one request at a time, nothing paced). Its step is one group per agent of up to
 * FULL_CHECK_CHUNKS, so that the chunks the unfiltered own-vector query does not return (from
 * under 1 in 100 of the bench's newest chunks to 1 in 5 of its oldest) share filtered requests,
 * sized from the agent's last pace; those go by the agent's chunk ids as its searches send them
 * (lib/retrieval/id-scope.ts: the same list, held once for both), since a `where` costs Chroma a
 * pass over every record's metadata per request (150 to 350 ms at 100,000 vectors, about a second
 * at 1,000,000); and it gives way to searches before each request.
 */
interface Background {
  model: string;
  between: () => Promise<void>;
  streams: () => number;
  /** Each agent's filtered-query pace, so that a step's first filtered request is sized from the last. */
  paces: Map<number, { msPerQuery?: number }>;
}

function backgroundCheck(b: Background, agentId: number, ids: string[]): OwnVectorCheck {
  let scope: IdScope | null = null;
  const documents = new Set(keysOf(ids).map((k) => k.document_id));
  if (!b.paces.has(agentId)) b.paces.set(agentId, {});
  return {
    ids: () => {
      try {
        // The list searches send leaves out the agent's suspect documents: one asked about here is
        // not in it, and its chunks go by the agent filter.
        const suspects = suspectDocumentsOf(agentId, b.model);
        if (suspects.some((d) => documents.has(d))) return null;
        scope = agentIdScope(agentId, b.model, suspects);
        return scope?.json ?? null;
      } catch {
        return null; // the agent was removed meanwhile: the filter answers what Chroma still holds
      }
    },
    refused: () => {
      if (scope) scopeRefused(scope);
    },
    between: b.between,
    streams: b.streams,
    pace: b.paces.get(agentId),
  };
}

/**
 * One pass over some documents: what the index cannot return is written again. Writing moves the
 * graph and can cut off a chunk checked before, so when anything was written, the chunks are
 * queried once more and what is lost then is kept as unreachable: searches rank those by their
 * exact distance. The suspect pass queries all its chunks again; the full check, the chunks of the
 * documents it wrote (a lost chunk's nearest neighbours are most likely its own document's; asking
 * the whole step again doubled its cost wherever the graph loses chunks: 4 in 100 of the bench's
 * oldest chunks were written again, so every step there wrote some). Null when `stop` said to
 * stop; otherwise what it wrote and kept.
 */
async function pass(
  c: Recheck,
  docs: Doc[],
  stop: () => boolean,
  {
    counted = false,
    onWritten = (_n: number) => {},
    background,
  }: { counted?: boolean; onWritten?: (n: number) => void; background?: Background } = {},
): Promise<{ rewritten: number; kept: number } | null> {
  const s = c.s;
  const model = embedder();
  const collection = await collectionFor(model);
  const stepChunks = background ? FULL_CHECK_CHUNKS : BATCH_CHUNKS;
  const how = (agentId: number, ids: string[]) => (background ? backgroundCheck(background, agentId, ids) : {});
  let rewritten = 0;
  const writtenDocuments = new Set<number>();
  // Counted as they are written, also when the pass is stopped half-way.
  const wrote = (w: Written) => {
    rewritten += w.chunks;
    for (const d of w.documents) writtenDocuments.add(d);
    s.rewritten_since_start += w.chunks;
    if (counted) s.rewritten += w.chunks;
    onWritten(w.chunks);
  };
  for (const step of steps(docs, stepChunks)) {
    if (stop()) return null;
    for (const [agentId, ids] of step) {
      if (background) {
        await background.between();
        if (stop()) return null;
      }
      const stored = await agentVectors(collection, agentId, ids);
      // Chunks Chroma no longer holds at all (a write cut off by the kill): written from the app's copy.
      if (stored.length < ids.length) {
        const have = new Set(stored.map((v) => v.id));
        wrote(
          await restoreMissing(
            collection,
            model.model,
            agentId,
            ids.filter((id) => !have.has(id)),
          ),
        );
      }
      const check = how(agentId, ids);
      const lost = await unreachableAmong(collection, agentId, stored, check);
      if (lost.size > 0) wrote(await rewrite(collection, agentId, [...lost], check));
      if (counted) s.checked += ids.length;
    }
    await new Promise<void>((r) => setImmediate(r)); // searches go first
  }
  let kept = 0;
  for (const step of steps(docs, stepChunks)) {
    for (const [agentId, all] of step) {
      // Nothing written (of these documents, for the full check): every chunk was returned, and
      // kept ones among them are forgotten.
      const ids = rewritten > 0 && !background ? all : all.filter((id) => writtenDocuments.has(parseChunkId(id)!.document_id));
      if (ids.length < all.length) {
        const again = new Set(ids);
        clearUnreachable(keysOf(all.filter((id) => !again.has(id))));
      }
      if (ids.length === 0) continue;
      await background?.between();
      if (stop()) return null;
      const stored = await agentVectors(collection, agentId, ids);
      const lost = await unreachableAmong(collection, agentId, stored, how(agentId, ids));
      const ready = readyAmong(
        agentId,
        stored.map((v) => v.document_id),
      );
      const keep = keysOf([...lost]).filter((k) => ready.has(k.document_id));
      markUnreachable(agentId, keep);
      clearUnreachable(keysOf(ids.filter((id) => !lost.has(id))));
      kept += keep.length;
    }
  }
  if (counted) s.still_unreachable += kept;
  return { rewritten, kept };
}

/** What a write of lost chunks wrote: how many, and of which documents. */
interface Written {
  chunks: number;
  documents: number[];
}

/** Writes lost chunks again (same id, embedding and metadata). */
async function rewrite(collection: Collection, agentId: number, ids: string[], check: OwnVectorCheck): Promise<Written> {
  // Asked again, so that chunks of a document removed meanwhile are left alone.
  const again = await agentVectors(collection, agentId, ids);
  const lost = await unreachableAmong(collection, agentId, again, check);
  const ready = readyAmong(
    agentId,
    again.map((v) => v.document_id),
  );
  const target = again.filter((v) => lost.has(v.id) && ready.has(v.document_id));
  if (target.length === 0) return { chunks: 0, documents: [] };
  const documents = new Set(target.map((v) => v.document_id));
  const written = await writingAgain(agentId, documents, () =>
    readdVectors(
      collection,
      agentId,
      target.map((v) => v.id),
      { byCheck: true },
    ),
  );
  return { chunks: written.length, documents: [...documents] };
}

/**
 * Runs a write of chunks of these documents again; a document removed meanwhile gets its removal
 * queued once more, and when the write failed (its answer lost, as when Chroma is killed) the
 * removal is checked again later, since the write may still land.
 */
async function writingAgain<T>(agentId: number, documents: Set<number>, write: () => Promise<T>): Promise<T> {
  const requeue = (lateWrites: boolean) => {
    const ready = readyAmong(agentId, documents);
    for (const documentId of documents) {
      if (!ready.has(documentId))
        queueCleanup(agentId, documentId, 0, "removed while written again after a Chroma restart", { lateWrites });
    }
  };
  let result: T;
  try {
    result = await write();
  } catch (err) {
    requeue(true);
    throw err;
  }
  requeue(false);
  return result;
}

/**
 * Writes chunks of ready documents that Chroma does not hold from the app's copy of their
 * vectors (chunk_vectors), with the ingest's ids and metadata; how many were written. A chunk
 * without a copy stays missing, for the audit to report.
 */
async function restoreMissing(collection: Collection, model: string, agentId: number, ids: string[]): Promise<Written> {
  const keys = keysOf(ids);
  const ready = readyAmong(
    agentId,
    keys.map((k) => k.document_id),
  );
  const written: Written = { chunks: 0, documents: [] };
  for (const documentId of ready) {
    const wanted = new Set(keys.filter((k) => k.document_id === documentId).map((k) => k.chunk_index));
    const chunks: { index: number }[] = [];
    const vectors: number[][] = [];
    for (const r of documentVectorRuns(documentId, model)) {
      for (let i = 0; i < r.count; i++) {
        if (!wanted.has(r.first_chunk + i)) continue;
        chunks.push({ index: r.first_chunk + i });
        vectors.push(Array.from(r.vectors.subarray(i * r.dimension, (i + 1) * r.dimension)));
      }
    }
    if (chunks.length === 0) continue;
    await writingAgain(agentId, new Set([documentId]), () =>
      upsertNotedChunks(collection, { agentId, documentId }, chunks, vectors, { byCheck: true }),
    );
    written.chunks += chunks.length;
    written.documents.push(documentId);
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
 * unclean exit since the last finished pass, whether suspect documents wait (written while
 * following a restart, or left by a pass Chroma cut short), and whether a full check is to go
 * on (after an app restart); and at once when Chroma answers after refusing.
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
    } else if (c.s.state === "idle" && readySuspectCount(embedder().model) > 0) {
      c.s.state = "waiting";
      void run();
    } else if (c.s.state === "idle" && !c.fullRunning && fullCheck().below !== null) {
      void runFull();
    }
    c.looks = (c.looks ?? 0) + 1;
  };
  look();
  c.watch = setInterval(look, everyMs);
  c.watch.unref();
  if (!c.listening) {
    c.listening = true;
    onChromaBack(() => {
      if (current().watch) requestRecheck("Chroma answered again after refusing connections");
    });
  }
}

/**
 * Stops the watch and a pass that waits to start (one under way finishes); suspect documents
 * stay in SQLite, for the watch to take up when it starts again.
 */
export function stopWatchingChromaRestarts(): void {
  const c = current();
  if (c.watch) clearInterval(c.watch);
  c.watch = null;
  if (c.timer) clearTimeout(c.timer);
  c.timer = null;
  if (c.s.state === "waiting") c.s.state = "idle";
}

/** How many looks the watch has finished (each asks for at most one pass, before it returns). */
export const restartWatchLooks = (): number => current().looks ?? 0;
