/**
 * Process-wide state: the values that must exist once per server process, not once per module
 * instance. Next can load one module more than once (instrumentation, the app-router bundles, the
 * pages router, the proxy, dev-mode reloads), each copy with module variables of its own, so these
 * values live on globalThis, where every copy finds the same one.
 *
 * Each layer that keeps such values has one module for them, named in LAYER_STATE (its
 * `lib/<layer>/state.ts`): it declares a typed interface of the layer's values, each field with
 * what it holds and why it outlives a request, makes them in one place, and exports a typed
 * accessor (`export const dbState = () => layerState("db", createDbState)`) that the layer's other
 * modules import. The layer's values are kept on globalThis under one property: `__kb`, the layer
 * capitalised and `State` (layer `index-upkeep`: `globalThis.__kbIndexUpkeepState`). Tests reach
 * them through the same accessors, never through the global's name.
 *
 * PROCESS_STATE keeps the values still looked up one by one, each by a key: those of the modules
 * not yet moved to a state module of their layer (lib/vector-store, lib/retrieval,
 * lib/ingest/uploads.ts, lib/core/one-at-a-time.ts). It names each key and says what it holds,
 * which module writes it and why it must outlive a request; the value is kept on globalThis under
 * `__kb` and the key capitalised (key `chroma`: `globalThis.__kbChroma`), its type chosen by the
 * module that owns it. undefined means absent (never set, or cleared): processState creates the
 * value then.
 *
 * The exception: lib/auth/peer-stamp.mjs keeps `__kbPeerKey` (the random key of this process's
 * request stamps, which lib/auth/peer.ts checks) and `__kbPeerStamped` (whether the HTTP servers'
 * `emit` is wrapped already) on globalThis itself. It is plain ESM that the launcher loads with
 * `node --import` before Next starts, and plain Node cannot import a .ts file.
 *
 * The bottom layer: no imports, and no `server-only` either, as the proxy loads some of its users
 * (lib/auth/config.ts, through lib/auth/state.ts).
 */

/** The layers that keep process-wide values, and the one module of each that declares and makes them. */
export const LAYER_STATE = {
  db: "lib/db/state.ts",
  auth: "lib/auth/state.ts",
  embeddings: "lib/embeddings/state.ts",
  extract: "lib/extract/state.ts",
  ingest: "lib/ingest/state.ts",
  "index-upkeep": "lib/index-upkeep/state.ts",
  ask: "lib/ask/state.ts",
  runtime: "lib/runtime/services.ts",
} as const;

export type StateLayer = keyof typeof LAYER_STATE;

const capitalised = (name: string) => name.replace(/(?:^|-)([a-z])/g, (_, c: string) => c.toUpperCase());

/** The globalThis property a layer's values are kept under: `__kb`, the layer capitalised, and `State`. */
export const layerStateName = (layer: StateLayer): string => `__kb${capitalised(layer)}State`;

export const PROCESS_STATE = {
  // lib/vector-store
  chroma: "The chromadb client for CHROMA_URL, sending through the app's fetch. Written by lib/vector-store/client.ts. Outlives a request because the collection handles every bundle holds were made by it, and background work (upload jobs, rebuilds, clean-ups) goes on using it.",
  chromaFetch: "The fetch the Chroma client sends with (its deadline and Chroma's error classes), also used for the app's own REST calls to Chroma. Written by lib/vector-store/client.ts, with the client. Outlives a request because it belongs to the one client of the process.",
  collections: "The open collection (a promise) per CHROMA_URL and model. Written by lib/vector-store/client.ts (collectionFor, and replaceCollection after a rebuild's swap). Outlives a request because opening a collection settles a rebuild that stopped and checks the collection's model, once per process, and a swap must be seen by every bundle.",
  replaced: "Which collection took the place of which after a rebuild (old collection id to the new collection). Written by lib/vector-store/client.ts (replaceCollection, called by lib/index-upkeep/rebuild.ts). Outlives a request because work that started with the old collection (an ingest, a search) still holds it after the swap and is sent on to the new one.",
  chromaDeadline: "The AsyncLocalStorage that carries a shorter deadline for the Chroma calls made inside one piece of work (the health check). Written by lib/vector-store/fetch.ts. Outlives a request because there must be one store per process: the client's fetch, made by whichever bundle came first, reads the deadline another bundle set.",
  chromaLink: "Whether the last Chroma call was refused, and who to tell when Chroma answers again. Written by lib/vector-store/fetch.ts; lib/index-upkeep/after-restart.ts adds its listener. Outlives a request because the refusal is seen by one call and Chroma's return by a later one, of any request.",
  searchActivity: "Searches in flight and when the last one ran. Written by lib/vector-store/batched-add.ts (asSearch, around every Chroma query and exact scan). Outlives a request because background work (upload jobs' adds, the index-recall monitor) gives way to the searches of other requests.",
  addQueues: "The group-commit queue of Chroma adds per collection. Written by lib/vector-store/batched-add.ts. Outlives a request because the documents being indexed at one moment, by any request or upload job, share Chroma's add requests.",
  writeMirrors: "The copy each collection's vector changes are also made to while a rebuild builds it (collection id to copy). Written by lib/vector-store/write-gate.ts, for lib/index-upkeep/rebuild.ts. Outlives a request because a rebuild runs in the background for minutes, and every change made meanwhile, by any request, must reach its copy.",
  rebuilding: "Whether this process is rebuilding an index now. Written by lib/vector-store/client.ts (setRebuilding, which lib/index-upkeep/rebuild.ts calls as a rebuild starts and ends), which reads it too. Outlives a request because while a rebuild runs, opening a collection must not take its half-built copy for one a stopped rebuild left.",

  // lib/retrieval
  exact: "Exact ranking's vectors held in memory per agent and model, the loads in progress, and the limits tests set. Written by lib/retrieval/exact.ts. Outlives a request because loading an agent's vectors from SQLite costs far more than the search, and their memory is bounded for the whole process (EXACT_MEMORY_MB).",
  agentScopes: "Each agent's list of ready chunk ids, as the JSON a Chroma query sends instead of the agent filter, with the ready set it was made for and whether Chroma refused it. Written by lib/retrieval/id-scope.ts. Outlives a request because making the list reads every ready document of the agent (333,000 ids for a large agent), and it stays valid until that agent's ready documents change.",
  corpusStats: "Per-agent feature counts for query weighting, for the most recently searched agents. Written by lib/retrieval/corpus-stats.ts. Outlives a request because counting a large agent's chunks takes seconds; each search brings the counts up to date instead.",
  corpusStatsLock: "The tail of each agent's line of corpus-count updates. Written by lib/retrieval/corpus-stats.ts. Outlives a request because the updates of concurrent searches and removals for one agent run one after the other.",
  corpusSaves: "Timers of the pending disk writes of corpus counts, per agent. Written by lib/retrieval/corpus-stats.ts. Outlives a request because the counts are written a few seconds after the request that changed them (a burst of uploads once), and at exit.",
  corpusExitHook: "Whether the exit hook that writes the pending corpus counts is installed. Written by lib/retrieval/corpus-stats.ts. Outlives a request because the hook is installed once per process, however many times the module is loaded.",
  indexRecallRuns: "Index-recall measurements in progress, per agent. Written by lib/retrieval/index-recall.ts. Outlives a request because a request for an agent being measured joins the measurement under way, the monitor's or another request's.",

  // lib/ingest
  uploadJobs: "Bulk upload jobs by id: their files, queue and progress, kept for an hour after they finish. Written by lib/ingest/uploads.ts. Outlives a request because a job is sent in several requests, runs after the request that started it answered, and is polled for its progress.",

  // lib/core
  oneAtATime: "What holds each one-at-a-time key (an evaluation, a generation, a replay, a reachability audit, a sweep) and since when. Written by lib/core/one-at-a-time.ts, for lib/evaluation/run.ts, lib/evaluation/sweep.ts, lib/evaluation/generate/index.ts, lib/questions/replay.ts and app/api/audit. Outlives a request because the work can run after the request that claimed it answered, and another request for it is refused meanwhile, whichever bundle it came through.",
} as const;

export type ProcessStateKey = keyof typeof PROCESS_STATE;

/** The globalThis property a key's value is kept under: `__kb` and the key capitalised. */
export const processStateName = <K extends ProcessStateKey>(key: K): `__kb${Capitalize<K>}` => `__kb${key.charAt(0).toUpperCase()}${key.slice(1)}` as `__kb${Capitalize<K>}`;

const store = globalThis as unknown as Record<string, unknown>;

/**
 * The values of `layer`, made by `init` on first use in this process. Only the layer's state
 * module (LAYER_STATE) calls this; `init`'s return type is the type of the layer's values.
 */
export function layerState<T extends object>(layer: StateLayer, init: () => T): T {
  const name = layerStateName(layer);
  if (store[name] === undefined) store[name] = init();
  return store[name] as T;
}

/** The value of `key`, made by `init` on first use in this process (or after it was cleared). */
export function processState<T>(key: ProcessStateKey, init: () => T): T {
  const name = processStateName(key);
  if (store[name] === undefined) store[name] = init();
  return store[name] as T;
}

/** The value of `key` if there is one, without making it. */
export function peekProcessState<T>(key: ProcessStateKey): T | undefined {
  return store[processStateName(key)] as T | undefined;
}

/** Sets the value of `key` (undefined clears it) and returns it. */
export function setProcessState<T>(key: ProcessStateKey, value: T): T {
  store[processStateName(key)] = value;
  return value;
}
