import "server-only";
import { db } from "./client";

/**
 * What the collision search (lib/collisions/) reads: the agent's served chunks in a fixed order,
 * the texts of a few of them again, and the retrieval traces of the agent's own logged questions.
 */

export interface ServedDocument {
  id: number;
  filename: string;
  chunk_count: number;
}

/** The agent's served documents: ready and switched on, drafts' versions left out. */
export function servedDocuments(agentId: number): ServedDocument[] {
  return db()
    .prepare(
      "SELECT id, filename, chunk_count FROM documents WHERE agent_id = ? AND status = 'ready' AND draft_id IS NULL AND enabled = 1 ORDER BY id",
    )
    .all(agentId) as ServedDocument[];
}

/** The served chunks of the agent, one at a time in (document, index) order: memory stays flat whatever the agent's size. */
export function* servedChunkTexts(agentId: number): Generator<{ document_id: number; chunk_index: number; text: string }> {
  yield* db()
    .prepare(
      `SELECT c.document_id, c.chunk_index, c.text FROM chunks c JOIN documents d ON d.id = c.document_id
       WHERE d.agent_id = ? AND d.status = 'ready' AND d.draft_id IS NULL AND d.enabled = 1
       ORDER BY c.document_id, c.chunk_index`,
    )
    .iterate(agentId) as Generator<{ document_id: number; chunk_index: number; text: string }>;
}

/** One chunk's text, when it belongs to a document of this agent. */
export function chunkTextOf(agentId: number, documentId: number, chunkIndex: number): string | undefined {
  const row = db()
    .prepare(
      "SELECT c.text FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.document_id = ? AND c.chunk_index = ? AND d.agent_id = ?",
    )
    .get(documentId, chunkIndex, agentId) as { text: string } | undefined;
  return row?.text;
}

export interface LoggedRetrieval {
  id: number;
  /** The question's normalised key (null while the agent does not keep its questions' text). */
  question_key: string | null;
  question: string | null;
  retrieval: string;
}

/** The agent's own answered questions (searches and asks from the API) with what they retrieved, newest first. */
export function loggedRetrievals(agentId: number, limit: number): LoggedRetrieval[] {
  return db()
    .prepare(
      `SELECT id, question_key, COALESCE(json_extract(input, '$.query'), json_extract(input, '$.question')) AS question, retrieval
       FROM tool_calls WHERE agent_id = ? AND source = 'api' AND ok = 1 AND retrieval IS NOT NULL
         AND tool IN ('document_search', 'ask')
       ORDER BY id DESC LIMIT ?`,
    )
    .all(agentId, limit) as LoggedRetrieval[];
}
