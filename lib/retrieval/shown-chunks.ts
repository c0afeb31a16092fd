import "server-only";
import type { AgentView } from "../db/agent-view";
import { readyChunks, type ReadyChunk } from "../db/chunks";

/**
 * The text and document of ranked chunks as this view may show them, keyed by chunkKey: chunks
 * of ready documents; through a draft's view, of the documents it admits (its staged versions
 * among them); through a filtered view, of the documents its filter matches.
 */
export function shownChunks(agent: AgentView, ranked: { document_id: number; chunk_index: number }[]): Map<string, ReadyChunk> {
  const shown = agent.draft || agent.scope ? agent.admitted(ranked.map((r) => r.document_id)) : null;
  return shown
    ? readyChunks(
        agent.id,
        ranked.filter((r) => shown.has(r.document_id)),
        agent.draft !== undefined,
      )
    : readyChunks(agent.id, ranked);
}
