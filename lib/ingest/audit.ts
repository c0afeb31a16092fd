import "server-only";
import { chunkId, ownCollections } from "../vector-store/client";
import { documentStates, failIndexingDocuments, findDocument } from "../db/documents";
import { activeIngests, rechunkDocument } from "./pipeline";
import { enqueueCleanup, pendingCleanups, runCleanup } from "./cleanup";
import { listVectorOwners } from "../vector-store/chunks";

/**
 * Compares SQLite with Chroma, document by document: vectors nothing accounts for, ready
 * documents with vectors missing or too many, documents stuck in `indexing`, and what is
 * still awaiting clean-up. `repairIndex` fixes what it can.
 */

export interface VectorGroup {
  agent_id: number;
  document_id: number;
  collection: string;
  vectors: number;
  /** The first few chunk ids involved. */
  ids: string[];
}

export interface DocumentIssue {
  agent_id: number;
  document_id: number;
  filename: string;
  expected: number;
  found: number;
  /** Missing chunks' ids (the first few). */
  ids: string[];
}

export interface AuditReport {
  checked_documents: number;
  checked_vectors: number;
  orphan_vectors: VectorGroup[];
  missing_vectors: DocumentIssue[];
  count_mismatches: DocumentIssue[];
  stuck_documents: { agent_id: number; document_id: number; filename: string; since: string }[];
  /** Queued removals (the errors of failed attempts are in the server log). */
  awaiting_cleanup: { agent_id: number; document_id: number | null; reason: string; attempts: number; next_attempt_at: string }[];
  ok: boolean;
}

const SAMPLE = 20;

export async function auditIndex(): Promise<AuditReport> {
  const docs = new Map(
    documentStates().map((d) => [d.id, d]),
  );
  const cleanups = pendingCleanups();
  const awaited = (agentId: number, documentId: number) =>
    cleanups.some((c) => c.agent_id === agentId && (c.document_id === null || c.document_id === documentId));
  const active = activeIngests();

  const orphans = new Map<string, VectorGroup>();
  const found = new Map<number, Set<number>>();
  let checked = 0;
  for (const collection of await ownCollections()) {
    const model = String(collection.metadata?.embedding_model ?? "");
    for await (const v of listVectorOwners(collection)) {
      checked++;
      const doc = docs.get(v.document_id);
      const owned = doc && doc.agent_id === v.agent_id && doc.embedding_model === model;
      if (owned && doc.status === "ready") {
        const set = found.get(doc.id) ?? new Set<number>();
        set.add(v.chunk_index);
        found.set(doc.id, set);
        continue;
      }
      if (owned && doc.status === "indexing") continue; // in progress, or reported as stuck below
      if (awaited(v.agent_id, v.document_id)) continue;
      const key = `${collection.name}|${v.agent_id}|${v.document_id}`;
      const group = orphans.get(key) ?? { agent_id: v.agent_id, document_id: v.document_id, collection: collection.name, vectors: 0, ids: [] };
      group.vectors++;
      if (group.ids.length < SAMPLE) group.ids.push(v.id);
      orphans.set(key, group);
    }
  }

  const missing: DocumentIssue[] = [];
  const mismatches: DocumentIssue[] = [];
  for (const doc of docs.values()) {
    if (doc.status !== "ready") continue;
    const have = found.get(doc.id) ?? new Set<number>();
    const absent: string[] = [];
    for (let i = 0; i < doc.chunk_count; i++) if (!have.has(i)) absent.push(chunkId(doc.id, i));
    const issue = { agent_id: doc.agent_id, document_id: doc.id, filename: doc.filename, expected: doc.chunk_count, found: have.size };
    if (absent.length > 0) missing.push({ ...issue, ids: absent.slice(0, SAMPLE) });
    if (have.size !== doc.chunk_count) mismatches.push({ ...issue, ids: absent.slice(0, SAMPLE) });
  }

  const stuck = [...docs.values()]
    .filter((d) => d.status === "indexing" && !active.has(d.id))
    .map((d) => ({ agent_id: d.agent_id, document_id: d.id, filename: d.filename, since: d.updated_at }));
  const report = {
    checked_documents: docs.size,
    checked_vectors: checked,
    orphan_vectors: [...orphans.values()],
    missing_vectors: missing,
    count_mismatches: mismatches,
    stuck_documents: stuck,
    awaiting_cleanup: cleanups.map((c) => ({
      agent_id: c.agent_id,
      document_id: c.document_id,
      reason: c.reason,
      attempts: c.attempts,
      next_attempt_at: c.next_attempt_at,
    })),
  };
  return { ...report, ok: orphans.size === 0 && missing.length === 0 && mismatches.length === 0 && stuck.length === 0 };
}

export interface RepairReport {
  removed_orphans: { agent_id: number; document_id: number; vectors: number }[];
  failed_stuck: number[];
  reindexed: { document_id: number; new_document_id: number | null; outcome: string; message: string }[];
  cleanup_left: number;
  after: AuditReport;
}

/**
 * Removes orphan vectors, fails stuck documents (queueing their vectors for removal) and
 * re-indexes, from their stored text and with their own chunk settings, ready documents
 * whose vectors are incomplete; then audits again.
 */
export async function repairIndex(): Promise<RepairReport> {
  const before = await auditIndex();
  for (const o of before.orphan_vectors) enqueueCleanup(o.agent_id, o.document_id, o.vectors, "audit: orphan vectors");
  failIndexingDocuments(
    "Indexing stopped and never finished; upload the file again.",
    before.stuck_documents.map((s) => s.document_id),
  );
  const cleanupLeft = await runCleanup({ all: true });

  const reindexed: RepairReport["reindexed"] = [];
  const broken = new Map(before.count_mismatches.map((d) => [d.document_id, d]));
  for (const d of broken.values()) {
    const row = findDocument(d.agent_id, d.document_id);
    if (row?.status !== "ready") continue;
    const result = await rechunkDocument(d.agent_id, d.document_id, { chunkSize: row.chunk_size, chunkOverlap: row.chunk_overlap });
    reindexed.push({ document_id: d.document_id, new_document_id: result.document_id, outcome: result.outcome, message: result.message });
  }
  return {
    removed_orphans: before.orphan_vectors.map((o) => ({ agent_id: o.agent_id, document_id: o.document_id, vectors: o.vectors })),
    failed_stuck: before.stuck_documents.map((s) => s.document_id),
    reindexed,
    cleanup_left: cleanupLeft,
    after: await auditIndex(),
  };
}
