import "server-only";
import { ChromaClient, type Collection, type Metadata, type Where } from "chromadb";
import { env } from "../env.mjs";
import { AppError, unavailable } from "../core/errors";
import type { Embedder } from "../embeddings";
import { chromaFetch } from "./fetch";
import { vectorWrite } from "./write-gate";
import { vectorStoreState } from "./state";

/** The app's handle on a collection; modules outside lib/vector-store name it from here, not from chromadb. */
export type { Collection, Metadata };

export const DISTANCE_SPACE = "cosine";

/**
 * HNSW settings of a new collection, chosen by `node scripts/bench/hnsw.mjs` (clustered
 * 1,024-dimension vectors, 10 agents, 2 cores): at 100,000 vectors these Chroma defaults added
 * vectors much faster than 32 neighbours and ef_construction 200, with about the same recall@10
 * and query latency, but once left a vector missing from full per-agent rankings where the
 * larger graph left none (measured in docs/performance.md, 'HNSW settings'). Ingest speed wins:
 * the inspector and recall runs measure the expected chunks' distances directly, so a missing
 * vector cannot hide a document there, and the audit's reachability check finds and rewrites
 * the rare unreachable one. Set explicitly so that a change of Chroma's defaults does not change
 * the app's index unnoticed; existing collections keep the settings they were created with.
 */
export const HNSW = { ef_construction: 100, ef_search: 100, max_neighbors: 16 } as const;
export const DISTANCE_LABEL = "cosine distance, lower is better";

/** What Chroma keeps beside each vector: the ids a query filters on. Text and offsets are in SQLite. */
export interface ChunkMetadata {
  agent_id: number;
  document_id: number;
  chunk_index: number;
}

export const chunkId = (documentId: number, chunkIndex: number) => `doc${documentId}#${chunkIndex}`;

/** Where the app's Chroma is: CHROMA_URL, or the embedded server the launcher started. */
export function chromaUrl(): string {
  const url = env().CHROMA_URL;
  if (!url) {
    throw unavailable("Chroma is not configured: start the app with `npm start`, which runs the embedded Chroma, or set CHROMA_URL.");
  }
  return url;
}

/** The open collection per `<CHROMA_URL>|<model>`. */
const collections = () => vectorStoreState().collections;
/** Old collection id: the collection a rebuild put in its place. */
const replaced = () => vectorStoreState().replaced;

/**
 * The collection that holds a collection's vectors now: itself, or the one a rebuild of the
 * index put in its place (lib/index-upkeep/rebuild.ts). Work that started with the old one
 * (an ingest, a search) goes on with the new one.
 */
export function live(collection: Collection): Collection {
  let c = collection;
  for (let hops = 0; hops < 16; hops++) {
    const next = replaced().get(c.id);
    if (!next) break;
    c = next;
  }
  return c;
}

/** After a rebuild: `fresh` took the name (and the app's cached handle) of `old`. */
export function replaceCollection(old: Collection, fresh: Collection, model: string): void {
  replaced().set(old.id, fresh);
  collections().set(`${chromaUrl()}|${model}`, Promise.resolve(fresh));
}

export function chroma(): ChromaClient {
  const state = vectorStoreState();
  let client = state.client;
  if (!client) {
    const url = new URL(chromaUrl());
    const e = env();
    client = state.client = new ChromaClient({
      host: url.hostname,
      port: url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80,
      ssl: url.protocol === "https:",
      tenant: e.CHROMA_TENANT,
      database: e.CHROMA_DATABASE,
    });
    useFetch(client, (state.fetch = chromaFetch(e.CHROMA_TIMEOUT_MS)));
  }
  return client;
}

/** The REST address of a collection operation, on the same origin the client talks to (it ignores any path in CHROMA_URL). */
function recordsUrl(collection: Collection, op: "add" | "upsert" | "query"): URL {
  const c = live(collection);
  const path = [c.tenant, c.database, c.id].map(encodeURIComponent);
  return new URL(`/api/v2/tenants/${path[0]}/databases/${path[1]}/collections/${path[2]}/${op}`, new URL(chromaUrl()).origin);
}

/** Sends one JSON request (an object, or its text) through the client's fetch (its deadline and error classes) and parses the answer. */
async function postJson<T>(url: URL, body: unknown): Promise<T> {
  chroma(); // makes the fetch
  const text = typeof body === "string" ? body : JSON.stringify(body);
  const res = await vectorStoreState().fetch!(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: text });
  return (await res.json()) as T;
}

/**
 * Chroma's REST query, ids and distances only, without the chromadb client's request
 * building, validation and copies: the search path's one Chroma call, where the client's
 * share was about a millisecond of the app's time per search.
 */
export async function queryDistances(
  collection: Collection,
  q: { queryEmbeddings: number[][]; nResults: number } & ({ where: Where } | { idsJson: string } | { unscoped: true }),
): Promise<{ ids: string[][]; distances: (number | null)[][] }> {
  const body = { query_embeddings: q.queryEmbeddings, n_results: q.nResults, include: ["distances"] };
  if ("where" in q) return postJson(recordsUrl(collection, "query"), { ...body, where: q.where });
  // The health probe's: the whole collection, neither filter nor ids.
  if ("unscoped" in q) return postJson(recordsUrl(collection, "query"), body);
  // The ids list is JSON made once per agent (lib/retrieval/id-scope.ts): spliced in, not serialised again.
  return postJson(recordsUrl(collection, "query"), `${JSON.stringify(body).slice(0, -1)},"ids":${q.idsJson}}`);
}

/** A vector as Chroma's base64 wire format: the float32 bytes, little-endian as on every platform the app runs on. */
export function packVector(v: ArrayLike<number>): string {
  const f = v instanceof Float32Array ? v : Float32Array.from(v);
  return Buffer.from(f.buffer, f.byteOffset, f.byteLength).toString("base64");
}

/**
 * Adds records through Chroma's REST add, with the same fetch (deadline, error classes) as the
 * client. The chromadb client packs base64 vectors one byte at a time through a JavaScript
 * string, which cost the app more CPU during an ingest than embedding the chunks; here a
 * Buffer does it. Servers without base64 support get plain float lists, as from the client.
 */
export async function addRecords(
  collection: Collection,
  records: { ids: string[]; embeddings: number[][]; metadatas: Metadata[] },
): Promise<void> {
  await vectorWrite(live(collection), (c) => writeRecords(c, records, "add"));
}

/** addRecords as an upsert: for chunks written again, which Chroma may hold already after all. */
export async function upsertRecords(
  collection: Collection,
  records: { ids: string[]; embeddings: number[][]; metadatas: Metadata[] },
): Promise<void> {
  await vectorWrite(live(collection), (c) => writeRecords(c, records, "upsert"));
}

/**
 * Writes records to one collection as they are, not mirrored: `upsert` for a rebuild's copy,
 * where a change mirrored meanwhile may have written the same record already.
 */
export async function writeRecords(
  collection: Collection,
  records: { ids: string[]; embeddings: number[][]; metadatas: Metadata[] },
  op: "add" | "upsert",
): Promise<void> {
  const base64 = await chroma().supportsBase64Encoding();
  await postJson(recordsUrl(collection, op), {
    ids: records.ids,
    embeddings: base64 ? records.embeddings.map(packVector) : records.embeddings,
    metadatas: records.metadatas,
  });
}

/**
 * chromadb 3.x takes no custom fetch (its constructor installs its own) and copies
 * `fetchOptions` once into every request, so one AbortSignal there would expire for all.
 * The client's HTTP layer takes a fetch, which collections inherit, so it goes there.
 */
function useFetch(client: ChromaClient, fetchImpl: typeof fetch): void {
  const http = (client as unknown as { apiClient?: { setConfig?: (config: { fetch: typeof fetch }) => unknown } }).apiClient;
  if (typeof http?.setConfig !== "function") {
    throw new Error("The chromadb client no longer exposes its HTTP client; Chroma calls would have no timeout.");
  }
  http.setConfig({ fetch: fetchImpl });
}

// Which failures mean Chroma did not serve a call is decided in lib/core (the classes of the
// driver's that do are marked in ./fetch), so the API's error answers need no import of this folder.
export { isVectorStoreUnavailable } from "../core/errors";

/** One collection per embedding model: vectors of two models never share an index. */
export function collectionName(model: string, dimension: number): string {
  const slug = model
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, "");
  return `${env().CHROMA_COLLECTION_PREFIX}-${slug}-${dimension}`.slice(0, 200);
}

/** Names a rebuild of the index uses beside a collection's own: the copy, and the original once replaced. */
export const REBUILD_SUFFIX = ".rebuild";
export const RETIRED_SUFFIX = ".old";
const rebuildName = (n: string) => n.endsWith(REBUILD_SUFFIX) || n.endsWith(RETIRED_SUFFIX);

async function listAllCollections(): Promise<Collection[]> {
  const all: Collection[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await chroma().listCollections({ limit: 100, offset });
    all.push(...page);
    if (page.length < 100) break;
  }
  return all;
}

/**
 * This process is rebuilding an index (lib/index-upkeep/rebuild.ts says so as it starts and
 * ends): opening a collection meanwhile must not take the half-built copy for one a stopped
 * rebuild left behind.
 */
export function setRebuilding(on: boolean): void {
  vectorStoreState().rebuilding = on;
}

/**
 * What a rebuild that stopped half-way (the app or Chroma went away) left behind: the original
 * gets its name back if it had already given it up, a partial copy is dropped, and a replaced
 * original is dropped. Not while this process rebuilds (setRebuilding).
 */
async function settleRebuild(name: string): Promise<void> {
  if (vectorStoreState().rebuilding) return;
  const names = new Set((await listAllCollections()).map((c) => c.name));
  if (!names.has(name) && names.has(name + RETIRED_SUFFIX)) {
    await (await chroma().getCollection({ name: name + RETIRED_SUFFIX })).modify({ name });
    names.add(name);
    names.delete(name + RETIRED_SUFFIX);
    console.log(`[kb-inspector] an index rebuild had stopped half-way: collection ${name} is back in use`);
  }
  if (names.has(name + REBUILD_SUFFIX)) await chroma().deleteCollection({ name: name + REBUILD_SUFFIX });
  if (names.has(name) && names.has(name + RETIRED_SUFFIX)) await chroma().deleteCollection({ name: name + RETIRED_SUFFIX });
}

async function openCollection(e: Embedder): Promise<Collection> {
  // A model on a compatible server may learn its dimension from a first call.
  if ("init" in e && typeof e.init === "function") await e.init();
  const name = collectionName(e.model, e.dimension);
  await settleRebuild(name);
  const collection = await chroma().getOrCreateCollection({
    name,
    embeddingFunction: null,
    configuration: { hnsw: { space: DISTANCE_SPACE, ...HNSW } },
    metadata: { embedding_model: e.model, embedding_dimension: e.dimension, distance_space: DISTANCE_SPACE },
  });
  const meta = collection.metadata ?? {};
  if (meta.embedding_model !== e.model || Number(meta.embedding_dimension) !== e.dimension) {
    throw new AppError(
      "embedding_model_mismatch",
      `Chroma collection "${name}" holds vectors of ${meta.embedding_model ?? "an unknown model"} ` +
        `(${meta.embedding_dimension ?? "?"} dimensions) but the app is configured for ${e.model} (${e.dimension}). ` +
        "Run `npm run reindex` to re-embed the documents with the configured model.",
    );
  }
  return collection;
}

/** The shared collection for this embedder; a failed open is retried on the next call. */
export function collectionFor(e: Embedder): Promise<Collection> {
  const key = `${chromaUrl()}|${e.model}`;
  let p = collections().get(key);
  if (!p) {
    p = openCollection(e);
    collections().set(key, p);
    p.catch(() => collections().delete(key));
  }
  return p;
}

/** All collections this app owns (every embedding model it has used). */
export async function ownCollections(): Promise<Collection[]> {
  const prefix = `${env().CHROMA_COLLECTION_PREFIX}-`;
  // A rebuild's copy and the original it replaced are not the app's index (the copy becomes it).
  return (await listAllCollections()).filter((c) => c.name.startsWith(prefix) && !rebuildName(c.name)).map(live);
}

/**
 * A collection of the app's settings for work of its own (a sweep row's index), named by the
 * caller and tagged with `metadata`; dropped with dropCollection.
 */
export async function createScratchCollection(name: string, model: string, metadata: Record<string, string | number>): Promise<Collection> {
  return chroma().createCollection({
    name,
    embeddingFunction: null,
    configuration: { hnsw: { space: DISTANCE_SPACE, ...HNSW } },
    metadata: { embedding_model: model, distance_space: DISTANCE_SPACE, ...metadata },
  });
}

export async function dropCollection(name: string): Promise<void> {
  await chroma().deleteCollection({ name });
}

/** Drops every collection whose name starts with `prefix`; how many. */
export async function dropCollectionsNamed(prefix: string): Promise<number> {
  const names: string[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await chroma().listCollections({ limit: 100, offset });
    names.push(...page.map((c) => c.name).filter((n) => n.startsWith(prefix)));
    if (page.length < 100) break;
  }
  for (const name of names) await dropCollection(name);
  return names.length;
}
