import "server-only";
import { chunkId, isVectorStoreUnavailable, type Collection } from "../vector-store/client";
import {
  agentVectors,
  closestFirst,
  collectionModel,
  cosineDistance,
  documentVectors,
  nearestChunks,
  type RankedChunk,
} from "../vector-store/chunks";
import { unreachableOf } from "../db/unreachable";
import { suspectDocumentsOf } from "../db/index-check";
import { readVectorRuns } from "../db/chunk-vectors";
import { AgentView, type AgentRef } from "../db/agent-view";
import { agentIdScope, scopeRefused } from "./id-scope";

/**
 * The candidates Chroma's index gives an agent that is not ranked exactly, with what the index is
 * known not to return ranked around it: chunks a reachability check found it cannot return
 * (lib/db/unreachable.ts), and the chunks of documents a crash may have damaged until the check
 * after a restart has looked at them (lib/db/index-check.ts), are scored by their exact distance
 * and merged in.
 */

type ExactVector = { document_id: number; chunk_index: number; embedding: ArrayLike<number> };

/** The nearest `nResults` chunks of one agent for each query vector, closest first (ids and distances). */
export async function queryAgent(
  collection: Collection,
  ref: AgentRef,
  queryEmbeddings: number[][],
  nResults: number,
): Promise<RankedChunk[][]> {
  const agent = AgentView.of(ref);
  const agentId = agent.id;
  // No agent of the app has such an id: SQLite has nothing to scope or rank around.
  if (agentId <= 0) return nearestChunks(collection, { agentId }, queryEmbeddings, nResults);
  const model = collectionModel(collection);
  const suspects = suspectDocumentsOf(agentId, model);
  const lists = await nearestOfAgent(collection, agent, model, suspects, queryEmbeddings, nResults);
  const exact = [...(await suspectVectors(collection, agentId, model, suspects)), ...(await keptVectors(collection, agentId))];
  if (exact.length === 0) return lists;
  const keys = new Set(exact.map((v) => chunkId(v.document_id, v.chunk_index)));
  return lists.map((list, q) =>
    [
      ...list.filter((r) => !keys.has(chunkId(r.document_id, r.chunk_index))),
      ...exact.map((v) => ({
        document_id: v.document_id,
        chunk_index: v.chunk_index,
        score: cosineDistance(queryEmbeddings[q], v.embedding),
      })),
    ]
      .sort(closestFirst)
      .slice(0, nResults),
  );
}

/**
 * Chroma's nearest among the agent's ready chunks, the suspect documents' left out: asked by the
 * list of their ids (lib/retrieval/id-scope.ts), or by the agent filter when the list is too long
 * or Chroma refused it.
 */
async function nearestOfAgent(
  collection: Collection,
  agent: AgentView,
  model: string,
  suspects: number[],
  queryEmbeddings: number[][],
  nResults: number,
): Promise<RankedChunk[][]> {
  const agentId = agent.id;
  const scope = agentIdScope(agent, model, suspects);
  if (scope) {
    try {
      return await nearestChunks(collection, { agentId, idsJson: scope.json }, queryEmbeddings, nResults);
    } catch (err) {
      if (isVectorStoreUnavailable(err)) throw err;
      scopeRefused(scope); // an id Chroma does not hold: the filter finds what it does hold
    }
  }
  return nearestChunks(collection, { agentId }, queryEmbeddings, nResults);
}

/** The kept unreachable chunks' vectors, as Chroma stores them. */
async function keptVectors(collection: Collection, agentId: number): Promise<ExactVector[]> {
  const lost = unreachableOf(agentId);
  return lost.length === 0
    ? []
    : agentVectors(
        collection,
        agentId,
        lost.map((k) => chunkId(k.document_id, k.chunk_index)),
      );
}

/** The suspect documents' vectors from the app's copy, or from Chroma for a document without one. */
async function suspectVectors(collection: Collection, agentId: number, model: string, documents: number[]): Promise<ExactVector[]> {
  if (documents.length === 0) return [];
  const out: ExactVector[] = [];
  const copied = new Set<number>();
  for (const r of readVectorRuns(documents, model)) {
    copied.add(r.document_id);
    for (let i = 0; i < r.count; i++)
      out.push({
        document_id: r.document_id,
        chunk_index: r.first_chunk + i,
        embedding: r.vectors.subarray(i * r.dimension, (i + 1) * r.dimension),
      });
  }
  const uncopied = documents.filter((d) => !copied.has(d));
  for (const v of await documentVectors(collection, agentId, uncopied)) out.push(v);
  return out;
}
