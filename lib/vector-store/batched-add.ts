import "server-only";
import type { Collection } from "chromadb";
import { vectorStoreState, type AddQueue as Queue, type PendingAdd as Pending, type VectorRecords } from "./state";
import { addRecords } from "./client";

/**
 * Vectors per Chroma add. Chroma's cost is mostly per request, so documents indexed at the same
 * time share requests; the cap bounds one request's body (about 5.5 MB of 1,024-dimension
 * vectors). A search that reaches Chroma while an add runs waits for it, and both share two
 * cores, so while searches are coming in, adds are kept small, start only when no search is in
 * flight (up to a short wait) and leave Chroma idle between them for as long as the last one
 * took: people searching see little of a bulk upload, which goes at full size and speed when
 * nobody searches. Measured with `npm run bench` (search_p95_ms_under_ingest).
 */
export const ADD_BATCH = 1_000;
export const ADD_BATCH_WHILE_SEARCHING = 64;
/** Searches this recent count as "searches are coming in". */
export const SEARCH_ACTIVE_MS = 2_000;
/** The longest pause between adds while searches come in. */
const MAX_PAUSE_MS = 500;
/** How long an add waits for searches in flight before it goes anyway. */
const MAX_YIELD_MS = 250;

/** What adds tell time and wait with. */
export interface AddClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}
const realClock: AddClock = { now: () => performance.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) };
let clock = realClock;

/** For tests: a clock of their own, so they move past SEARCH_ACTIVE_MS and see adds wait without sleeping. Returns the undo. */
export function useAddClock(testClock: AddClock): () => void {
  clock = testClock;
  return () => void (clock = realClock);
}

const activity = vectorStoreState().searchActivity;

/** Runs a search (a Chroma query, or an exact scan in the app), counted so that adds give way to it. */
export async function asSearch<T>(query: () => Promise<T>): Promise<T> {
  activity.inFlight++;
  activity.lastAt = clock.now();
  try {
    return await query();
  } finally {
    activity.inFlight--;
    activity.lastAt = clock.now();
  }
}

const searching = () => activity.inFlight > 0 || clock.now() - activity.lastAt < SEARCH_ACTIVE_MS;

/** Whether searches are coming in: background work (the index-recall monitor) waits for a pause. */
export const searchesActive = (): boolean => searching();

/**
 * Waits for a pause in searches (none in flight and none in the last SEARCH_ACTIVE_MS), or
 * `maxMs` at most, so that background work (the index-recall monitor, the full check after a
 * crash) goes between searches and still moves under a steady stream of them.
 */
export async function searchPause(maxMs: number, stepMs = 250): Promise<void> {
  const until = clock.now() + maxMs;
  while (searching() && clock.now() < until) await clock.sleep(stepMs);
}

/** Before an add while searches come in: a pause as long as the last add took, then the searches in flight. */
async function giveWay(queue: Queue): Promise<void> {
  if (!searching()) return;
  if (queue.lastAddMs > 0) await clock.sleep(Math.min(queue.lastAddMs, MAX_PAUSE_MS));
  const until = clock.now() + MAX_YIELD_MS;
  while (activity.inFlight > 0 && clock.now() < until) await clock.sleep(5);
}

export type { VectorRecords };

const queues = vectorStoreState().addQueues;

/**
 * Adds records to a collection, sharing Chroma requests with whatever other documents are being
 * written at the same moment (group commit): while one add is in flight, the records that arrive
 * wait and go together in the next one, up to `maxBatch`. Resolves once these records are in
 * Chroma; rejects with the request's error when the add that carried them failed (each writer
 * then removes its own document's vectors, as for a failure of its own).
 */
export function batchedAdd(collection: Collection, records: VectorRecords, maxBatch: number): Promise<void> {
  if (records.ids.length === 0) return Promise.resolve();
  let queue = queues.get(collection);
  if (!queue) {
    queue = { pending: [], running: false, lastAddMs: 0 };
    queues.set(collection, queue);
  }
  const done = new Promise<void>((resolve, reject) => queue.pending.push({ ...records, resolve, reject }));
  if (!queue.running) void drain(collection, queue, maxBatch);
  return done;
}

async function drain(collection: Collection, queue: Queue, maxBatch: number): Promise<void> {
  queue.running = true;
  try {
    // Documents embedded together hand over their vectors one after the other in the same turn
    // of the event loop: the first add waits for that turn to end, so it carries all of them
    // instead of the first document's few vectors alone.
    await new Promise((r) => setImmediate(r));
    while (queue.pending.length > 0) {
      if (searching()) await giveWay(queue);
      const limit = Math.max(1, Math.min(maxBatch, searching() ? ADD_BATCH_WHILE_SEARCHING : ADD_BATCH));
      // Whole writers' records only: a writer's part never straddles two requests, unless one
      // writer alone has more than the limit.
      const batch: Pending[] = [];
      let size = 0;
      while (queue.pending.length > 0 && (batch.length === 0 || size + queue.pending[0].ids.length <= limit)) {
        const next = queue.pending.shift()!;
        batch.push(next);
        size += next.ids.length;
      }
      try {
        const ids = batch.flatMap((p) => p.ids);
        const embeddings = batch.flatMap((p) => p.embeddings);
        const metadatas = batch.flatMap((p) => p.metadatas);
        for (let i = 0; i < size; i += limit) {
          if (i > 0 && searching()) await giveWay(queue);
          const started = clock.now();
          await addRecords(collection, {
            ids: ids.slice(i, i + limit),
            embeddings: embeddings.slice(i, i + limit),
            metadatas: metadatas.slice(i, i + limit),
          });
          queue.lastAddMs = clock.now() - started;
        }
        for (const p of batch) p.resolve();
      } catch (err) {
        for (const p of batch) p.reject(err);
      }
    }
  } finally {
    queue.running = false;
  }
}
