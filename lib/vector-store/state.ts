import "server-only";
import { AsyncLocalStorage } from "node:async_hooks";
import type { ChromaClient, Collection, Metadata } from "chromadb";
import { layerState } from "../core/process-state";

/** Whether the last Chroma call was refused, and who wants to know when it answers again (lib/vector-store/fetch.ts). */
export interface ChromaLink {
  refused: boolean;
  listeners: (() => void)[];
}

/** Searches in flight and when the last one ran (lib/vector-store/batched-add.ts, asSearch). */
export interface SearchActivity {
  inFlight: number;
  lastAt: number;
}

/** Vector records in the form Chroma's add takes them. */
export interface VectorRecords {
  ids: string[];
  embeddings: number[][];
  metadatas: Metadata[];
}

/** A writer's records waiting in a collection's add queue, with the writer's promise. */
export interface PendingAdd extends VectorRecords {
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** A collection's group-commit queue of adds (lib/vector-store/batched-add.ts). */
export interface AddQueue {
  pending: PendingAdd[];
  running: boolean;
  /** How long the last add took, in ms. */
  lastAddMs: number;
}

/** The copy a collection's vector changes are also made to while a rebuild builds it (lib/vector-store/write-gate.ts). */
export interface Mirror {
  copy: Collection;
  /** A change the copy did not take: the copy cannot replace the collection. */
  missed: string | null;
}

/** The Chroma adapter's process-wide values (lib/core/process-state.ts says why they live on globalThis). */
export interface VectorStoreState {
  /**
   * The chromadb client for CHROMA_URL, sending through `fetch`, made by lib/vector-store/client.ts
   * on first use (null until then): the collection handles every bundle holds were made by it, and
   * background work (upload jobs, rebuilds, clean-ups) goes on using it.
   */
  client: ChromaClient | null;
  /**
   * The fetch the client sends with (its deadline and Chroma's error classes), also used for the
   * app's own REST calls to Chroma; made with the client (null until then), as it belongs to the
   * one client of the process.
   */
  fetch: typeof fetch | null;
  /**
   * The open collection (a promise) per `<CHROMA_URL>|<model>` (collectionFor, and
   * replaceCollection after a rebuild's swap): opening a collection settles a rebuild that stopped
   * and checks the collection's model, once per process, and a swap must be seen by every bundle.
   */
  collections: Map<string, Promise<Collection>>;
  /**
   * Which collection took the place of which after a rebuild (old collection id to the new
   * collection; replaceCollection, called by lib/index-upkeep/rebuild.ts): work that started with
   * the old collection (an ingest, a search) still holds it after the swap and is sent on to the new one.
   */
  replaced: Map<string, Collection>;
  /**
   * The store that carries a shorter deadline for the Chroma calls made inside one piece of work
   * (the health check; lib/vector-store/fetch.ts): one store per process, as the client's fetch,
   * made by whichever bundle came first, reads the deadline another bundle set.
   */
  deadline: AsyncLocalStorage<number>;
  /**
   * Whether the last Chroma call was refused, and who to tell when Chroma answers again
   * (lib/vector-store/fetch.ts; lib/index-upkeep/after-restart.ts adds its listener): the refusal
   * is seen by one call and Chroma's return by a later one, of any request.
   */
  link: ChromaLink;
  /**
   * Searches in flight and when the last one ran (asSearch, around every Chroma query and exact
   * scan): background work (upload jobs' adds, the index-recall monitor) gives way to the searches
   * of other requests.
   */
  searchActivity: SearchActivity;
  /**
   * The group-commit queue of Chroma adds per collection (lib/vector-store/batched-add.ts): the
   * documents being indexed at one moment, by any request or upload job, share Chroma's add requests.
   */
  addQueues: WeakMap<Collection, AddQueue>;
  /**
   * The copy each collection's vector changes are also made to while a rebuild builds it
   * (collection id to copy; lib/vector-store/write-gate.ts, for lib/index-upkeep/rebuild.ts): a
   * rebuild runs in the background for minutes, and every change made meanwhile, by any request,
   * must reach its copy.
   */
  writeMirrors: Map<string, Mirror>;
  /**
   * Whether this process is rebuilding an index now (setRebuilding in lib/vector-store/client.ts,
   * which lib/index-upkeep/rebuild.ts calls as a rebuild starts and ends): while a rebuild runs,
   * opening a collection must not take its half-built copy for one a stopped rebuild left.
   */
  rebuilding: boolean;
}

function createVectorStoreState(): VectorStoreState {
  return {
    client: null,
    fetch: null,
    collections: new Map(),
    replaced: new Map(),
    deadline: new AsyncLocalStorage<number>(),
    link: { refused: false, listeners: [] },
    searchActivity: { inFlight: 0, lastAt: Number.NEGATIVE_INFINITY },
    addQueues: new WeakMap(),
    writeMirrors: new Map(),
    rebuilding: false,
  };
}

/** The Chroma adapter's values, made on first use in this process. */
export const vectorStoreState = () => layerState("vector-store", createVectorStoreState);
