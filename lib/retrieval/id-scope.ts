import "server-only";
import { readyChunkCounts } from "../db/documents";
import { AgentView, type AgentRef } from "../db/agent-view";
import { chunkId } from "../vector-store/client";
import { retrievalState, type IdScopeList as Scope } from "./state";

/**
 * The chunk ids a query of one agent may return, sent to Chroma as the query's `ids` instead of
 * the `where: {agent_id}` filter. Chroma resolves a `where` with a SQL query over its whole
 * collection before it searches: about a second a request at 1,000,000 vectors whatever the
 * agent's size (docs/performance.md, '1,000,000 chunks'), where a list of ids is looked up in the
 * index's own id map. The list is the agent's ready documents' chunks, read from SQLite, so it
 * names nothing of another agent, nor any chunk of a document that is indexing or being removed;
 * results are still checked against the agent's ready documents after the query (visibleOnly).
 *
 * Chroma refuses the whole query when one id is not in its index (a vector a crash lost, or a
 * document removed between the list and the query). The documents a crash may have damaged are
 * left out of the list (lib/retrieval/index-candidates.ts ranks their chunks exactly from the
 * app's copy), and a refused list is not sent again until the agent's ready documents change: the
 * query falls back to the `where` filter meanwhile. The lists are held per process, across
 * requests, since making one reads every ready document of the agent.
 */

/** Past this many chunks the list is not sent (14 MB of JSON; Chroma refuses requests past 40 MB by default). */
export const MAX_SCOPE_IDS = 1_000_000;
/** Memory for the lists of all agents together; the least recently used go first. */
const MAX_HELD_BYTES = 64 * 1024 * 1024;

const held = () => retrievalState().idScopes;

/** A query's scope: the agent's chunk ids (JSON) and the list they came from. */
export interface IdScope {
  slot: string;
  key: string;
  json: string;
}

/**
 * The scope of a query of the agent in the collection of `model`, leaving out the chunks of
 * `leftOut` documents; null when the `where` filter must be used (the list is too long, or Chroma
 * refused it).
 */
export function agentIdScope(ref: AgentRef, model: string, leftOut: number[]): IdScope | null {
  const agent = AgentView.of(ref);
  const agentId = agent.id;
  const slot = `${agentId}|${model}`;
  const key = `${agent.readySignature(model)}|${leftOut.join(",")}`;
  const scopes = held();
  let scope = scopes.get(slot);
  if (!scope || scope.key !== key) {
    scopes.delete(slot);
    scope = build(agentId, model, key, new Set(leftOut));
    scopes.set(slot, scope);
    evict(slot);
  }
  scope.usedAt = Date.now();
  return scope.refused ? null : { slot, key, json: scope.json };
}

/** Chroma refused the list (an id it does not hold): queries use the `where` filter until the ready set changes. */
export function scopeRefused(scope: IdScope): void {
  const held_ = held().get(scope.slot);
  if (held_?.key === scope.key) held_.refused = true;
}

function build(agentId: number, model: string, key: string, leftOut: Set<number>): Scope {
  const documents = readyChunkCounts(agentId, model).filter((d) => !leftOut.has(d.id));
  const ids = documents.reduce((n, d) => n + d.chunk_count, 0);
  // Too long to send: kept as refused, so that the ready set is not read again on every query.
  if (ids > MAX_SCOPE_IDS) return { key, json: "", refused: true, usedAt: Date.now() };
  const parts: string[] = [];
  for (const d of documents) for (let i = 0; i < d.chunk_count; i++) parts.push(`"${chunkId(d.id, i)}"`);
  return { key, json: `[${parts.join(",")}]`, refused: false, usedAt: Date.now() };
}

function evict(keep: string): void {
  const scopes = held();
  let bytes = [...scopes.values()].reduce((n, s) => n + s.json.length, 0);
  for (const [slot, s] of [...scopes.entries()].sort((a, b) => a[1].usedAt - b[1].usedAt)) {
    if (bytes <= MAX_HELD_BYTES) return;
    if (slot === keep) continue;
    scopes.delete(slot);
    bytes -= s.json.length;
  }
}
