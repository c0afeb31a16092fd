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
 * The exception: lib/auth/peer-stamp.mjs keeps `__kbPeerKey` (the random key of this process's
 * request stamps, which lib/auth/peer.ts checks) and `__kbPeerStamped` (whether the HTTP servers'
 * `emit` is wrapped already) on globalThis itself. It is plain ESM that the launcher loads with
 * `node --import` before Next starts, and plain Node cannot import a .ts file.
 *
 * A value that may exist once per module copy stays a module variable (the chat model's OpenAI
 * client in lib/ask/chat.ts: a second copy is a second small client, not a second lock or pool).
 *
 * The bottom layer: no imports, and no `server-only` either, as the proxy loads some of its users
 * (lib/auth/config.ts, through lib/auth/state.ts).
 */

/** The layers that keep process-wide values, and the one module of each that declares and makes them. */
export const LAYER_STATE = {
  core: "lib/core/state.ts",
  db: "lib/db/state.ts",
  auth: "lib/auth/state.ts",
  embeddings: "lib/embeddings/state.ts",
  extract: "lib/extract/state.ts",
  "vector-store": "lib/vector-store/state.ts",
  retrieval: "lib/retrieval/state.ts",
  ingest: "lib/ingest/state.ts",
  "index-upkeep": "lib/index-upkeep/state.ts",
  runtime: "lib/runtime/services.ts",
  map: "lib/map/state.ts",
} as const;

export type StateLayer = keyof typeof LAYER_STATE;

const capitalised = (name: string) => name.replace(/(?:^|-)([a-z])/g, (_, c: string) => c.toUpperCase());

/** The globalThis property a layer's values are kept under: `__kb`, the layer capitalised, and `State`. */
export const layerStateName = (layer: StateLayer): string => `__kb${capitalised(layer)}State`;

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
