import { createAgent } from "../lib/db/agents";
import { chroma, collectionFor, collectionName, DISTANCE_SPACE } from "../lib/vector-store/client";
import { embedder } from "../lib/embeddings/configured";
import { ingestFile } from "../lib/ingest/pipeline";
import { pendingCleanups } from "../lib/ingest/cleanup";
import type { ChunkStrategy } from "../lib/core/chunking";

export const enc = (s: string) => new TextEncoder().encode(s);

export function newAgent(name: string, tools: "document_search"[] = ["document_search"]) {
  return createAgent({ name: `${name} ${Math.random().toString(36).slice(2, 8)}`, tools });
}

export function ingest(
  agentId: number,
  filename: string,
  text: string,
  chunkSize = 800,
  chunkOverlap = 100,
  chunkStrategy?: ChunkStrategy,
) {
  return ingestFile(agentId, { filename, bytes: enc(text) }, { chunkSize, chunkOverlap, chunkStrategy });
}

/** What Chroma holds for a document, read straight from the collection. */
export async function vectorsOf(agentId: number, documentId: number) {
  const collection = await collectionFor(embedder());
  const res = await collection.get({ where: { $and: [{ agent_id: agentId }, { document_id: documentId }] } });
  return res.ids.map((id, i) => ({ id, metadata: res.metadatas[i], document: res.documents[i] }));
}

/**
 * The agent's clean-up entries whose vectors have not been deleted yet; an entry that was deleted
 * and only waits for its check for late writes (lib/ingest/cleanup.ts) is not among them.
 */
export const undeletedCleanups = (agentId: number) => pendingCleanups().filter((c) => c.agent_id === agentId && c.removed_at === null);

export const ARTICLES = {
  sla: "Support SLA. Premium customers get a first response from the support team within 4 business hours. Business customers within 8 hours.",
  refunds:
    "Refund policy. A full refund is available within 30 days of purchase. Refunds reach the original payment method in 5 to 10 days.",
  password: "Password reset. Use the forgot password link on the sign-in page; the reset email link works for one hour.",
  invoices: "Invoices are issued on the first day of each billing period and can be downloaded as PDF from the billing settings.",
};

/**
 * The configured embedder's collection, made with a deliberately sparse graph (2 neighbours a
 * node, ef 1), so that Chroma's index misses chunks its own vectors should find: for tests of
 * what the app does about such misses. Made before any ingest, so the app writes into it.
 */
export async function sparseCollection() {
  const e = embedder();
  await e.embed(["warm-up"]);
  const collection = await chroma().createCollection({
    name: collectionName(e.model, e.dimension),
    embeddingFunction: null,
    configuration: { hnsw: { space: DISTANCE_SPACE, max_neighbors: 2, ef_construction: 2, ef_search: 1 } },
    metadata: { embedding_model: e.model, embedding_dimension: e.dimension, distance_space: DISTANCE_SPACE },
  });
  return { e, collection };
}
