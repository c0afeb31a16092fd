// The raw side of the ingest: the app's own vectors added again straight to Chroma, into a
// scratch collection with the app collection's settings, over Chroma's HTTP API.
import { CHUNK_SIZE, log } from "./options.mjs";
import { http, json } from "./http.mjs";

/** The raw adds against the Chroma at `chromaUrl` (its default tenant and database at `chromaApi`). */
export function rawChroma(chromaUrl, chromaApi) {
  /** The app's collection, straight from Chroma (it exists once the first upload is indexed). */
  let appSide = null;
  const appTarget = async () => {
    if (appSide) return appSide;
    const collections = await http(`${chromaApi}/collections`);
    const appCollection = collections.find((c) => c.metadata && c.metadata.embedding_dimension != null && String(c.name).startsWith("kb-"));
    if (!appCollection) throw new Error(`no app collection among ${collections.map((c) => c.name).join(", ")}`);
    const dim = Number(appCollection.metadata.embedding_dimension);
    const preflight = await http(`${chromaUrl.replace(/\/$/, "")}/api/v2/pre-flight-checks`);
    // As the app's Chroma client does: embeddings travel as base64 float32 when the server takes it.
    const base64 = preflight.supports_base64_encoding === true;
    log(
      `collection ${appCollection.name}: ${dim} dimensions; Chroma max batch size ${preflight.max_batch_size}, base64 embeddings ${base64}`,
    );
    appSide = { collection: appCollection, dim, maxBatch: preflight.max_batch_size, base64 };
    return appSide;
  };
  const encode = (v) => (appSide.base64 ? Buffer.from(new Float32Array(v).buffer).toString("base64") : v);
  const filler = "lorem ipsum support article text ".repeat(40);
  let lens = null; // `${document_id}#${chunk_index}` -> chunk length, for the add with text
  /** A scratch collection with the app's HNSW settings, for the raw adds. */
  const createScratch = async () => {
    const { collection, dim } = await appTarget();
    return http(
      `${chromaApi}/collections`,
      json("POST", {
        name: `bench-scratch-${process.pid}-${Date.now()}`,
        configuration: { hnsw: collection.configuration_json?.hnsw ?? { space: "cosine" } },
        metadata: { embedding_dimension: dim, distance_space: "cosine" },
      }),
    );
  };
  const dropScratch = (scratch) =>
    http(`${chromaApi}/collections/${scratch.name}`, { method: "DELETE" }, [200, 204]).catch((e) =>
      log(`scratch collection not deleted: ${e.message}`),
    );
  /**
   * Adds the app's vectors [from, to) again, with their metadata, to a scratch collection in
   * batches of up to Chroma's max batch size (a batch past the server's payload limit, 413, is
   * split in two and sent again, untimed until accepted). The vectors are read from the app's
   * collection in the order it added them (untimed): how hard an add is for the index depends on
   * the vectors, and clustered text embeddings cost Chroma more than random ones. `withText`
   * also stores an 800-character document per vector, as a client that keeps chunk text in
   * Chroma would; the app keeps it in SQLite. Returns the milliseconds spent in add requests.
   */
  const rawAddRange = async (scratch, from, to, withText) => {
    const { collection, maxBatch } = await appTarget();
    let batch = maxBatch;
    let addMs = 0;
    let added = from;
    while (added < to) {
      const slice = await http(
        `${chromaApi}/collections/${collection.id}/get`,
        json("POST", { limit: Math.min(batch, to - added), offset: added, include: ["embeddings", "metadatas"] }),
      );
      if (slice.ids.length === 0) throw new Error(`the app's collection ended after ${added} of ${to} vectors`);
      // The body is built before the clock starts: this measures Chroma's add, not our JSON.
      const body = JSON.stringify({
        ids: slice.ids.map((_, j) => `raw${added + j}`),
        embeddings: slice.embeddings.map(encode),
        metadatas: slice.metadatas,
        ...(withText
          ? { documents: slice.metadatas.map((m) => filler.slice(0, lens.get(`${m.document_id}#${m.chunk_index}`) ?? CHUNK_SIZE)) }
          : {}),
      });
      const t0 = performance.now();
      const res = await fetch(`${chromaApi}/collections/${scratch.id}/add`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body,
      });
      const text = await res.text();
      const took = performance.now() - t0;
      if (res.status === 413 && batch > 1) {
        batch = Math.ceil(batch / 2);
        log(
          `raw add: ${slice.ids.length} vectors (${Math.round(body.length / 1e6)} MB) is past Chroma's payload limit; batches of ${batch}`,
        );
        continue;
      }
      if (res.status !== 200 && res.status !== 201) throw new Error(`Chroma add answered ${res.status}: ${text.slice(0, 400)}`);
      addMs += took;
      added += slice.ids.length;
    }
    return addMs;
  };
  return {
    appTarget,
    /** The app's collection, its dimension, Chroma's max batch size and encoding (after appTarget()). */
    side: () => appSide,
    createScratch,
    dropScratch,
    rawAddRange,
    /** The chunk lengths the add with text stores (`${document_id}#${chunk_index}` -> length). */
    setLens: (l) => (lens = l),
  };
}
