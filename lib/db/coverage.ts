import "server-only";
import type { Metadata } from "../core/metadata";
import { db } from "./client";
import { metadataOf } from "./metadata";

/**
 * What the agent's own calls retrieved (migration 030: `retrievals`, one row per chunk a logged
 * search or ask of the agent returned; `retrieved_documents`, one per document name, at the best
 * rank of its chunks; the inspector's and evaluations' calls left out), counted per document name
 * and per chunk.
 */

/** How often a document (by name) or a chunk was among a call's results, and at which ranks. */
export interface Retrieved {
  /** Calls that returned it. */
  retrieved: number;
  /** Of those, the calls where its best rank was 1, 2, 3, 4 to 5, 6 or lower. */
  ranks: { "1": number; "2": number; "3": number; "4-5": number; "6+": number };
  first_at: string;
  last_at: string;
}

interface Row {
  key: string | number;
  retrieved: number;
  r1: number;
  r2: number;
  r3: number;
  r45: number;
  r6: number;
  first_at: string;
  last_at: string;
}

const TALLY = `COUNT(*) AS retrieved, SUM(rank = 1) AS r1, SUM(rank = 2) AS r2, SUM(rank = 3) AS r3,
  SUM(rank BETWEEN 4 AND 5) AS r45, SUM(rank > 5) AS r6, MIN(created_at) AS first_at, MAX(created_at) AS last_at`;

const retrieved = (r: Row): Retrieved => ({
  retrieved: r.retrieved,
  ranks: { "1": r.r1, "2": r.r2, "3": r.r3, "4-5": r.r45, "6+": r.r6 },
  first_at: r.first_at,
  last_at: r.last_at,
});

/** Each document name the agent's calls retrieved since `since` (ISO; null: ever), with its tally. */
export function retrievedByName(agentId: number, since: string | null): Map<string, Retrieved> {
  const rows = db()
    .prepare(`SELECT filename AS key, ${TALLY} FROM retrieved_documents WHERE agent_id = ? AND created_at >= ? GROUP BY filename`)
    .all(agentId, since ?? "") as Row[];
  return new Map(rows.map((r) => [String(r.key), retrieved(r)]));
}

/** Each chunk of one document version the agent's calls retrieved since `since`, by chunk index. */
export function retrievedChunks(agentId: number, documentId: number, since: string | null): Map<number, Retrieved> {
  const rows = db()
    .prepare(
      // A call returns a chunk once: each row is one call.
      `SELECT chunk_index AS key, ${TALLY} FROM retrievals WHERE agent_id = ? AND document_id = ? AND created_at >= ? GROUP BY chunk_index`,
    )
    .all(agentId, documentId, since ?? "") as Row[];
  return new Map(rows.map((r) => [Number(r.key), retrieved(r)]));
}

/** The agent's own calls with a retrieval since `since`: what the counts are out of. */
export function coveredCalls(agentId: number, since: string | null): number {
  const row = db()
    .prepare(`SELECT COUNT(*) AS n FROM tool_calls WHERE agent_id = ? AND source = 'api' AND retrieval IS NOT NULL AND created_at >= ?`)
    .get(agentId, since ?? "") as { n: number };
  return row.n;
}

/** A served document as coverage lists it. */
export interface CoveredDocument {
  id: number;
  filename: string;
  chunk_count: number;
  enabled: number;
  metadata: Metadata;
}

/** The agent's served documents (ready, not in a draft), with only what coverage shows: read without their other columns. */
export function servedForCoverage(agentId: number): CoveredDocument[] {
  const rows = db()
    .prepare(
      "SELECT id, filename, chunk_count, enabled, metadata FROM documents WHERE agent_id = ? AND status = 'ready' AND draft_id IS NULL ORDER BY id",
    )
    .all(agentId) as (Omit<CoveredDocument, "metadata"> & { metadata: string })[];
  return rows.map((r) => ({ ...r, metadata: metadataOf(r.metadata) }));
}

/** How many of the agent's calls since `since` returned each chunk, by "documentId:chunkIndex" (chunks never returned are absent). */
export function retrievedPerChunk(agentId: number, since: string): Map<string, number> {
  const rows = db()
    .prepare(
      `SELECT document_id, chunk_index, COUNT(*) AS n FROM retrievals WHERE agent_id = ? AND created_at >= ? GROUP BY document_id, chunk_index`,
    )
    .all(agentId, since) as { document_id: number; chunk_index: number; n: number }[];
  return new Map(rows.map((r) => [`${r.document_id}:${r.chunk_index}`, r.n]));
}
