import "server-only";
import type { Collection } from "../vector-store/client";
import { chunkId, ownCollections } from "../vector-store/client";
import { documentStates, failIndexingDocuments, findDocument } from "../db/documents";
import { activeIngests, rechunkDocument } from "../ingest/pipeline";
import { enqueueCleanup, pendingCleanups, runCleanup, scheduleCleanup } from "../ingest/cleanup";
import { readyAmong } from "../db/chunks";
import { clearUnreachable, markUnreachable } from "../db/unreachable";
import { documentsWithoutVectors } from "../db/chunk-vectors";
import { agentVectors, listAgentVectors, listVectorOwners, unreachableAmong } from "../vector-store/chunks";
import { copyMissingVectors } from "./exact-copies";
import { readdVectors } from "./write-again";

/**
 * Compares SQLite with Chroma, document by document: vectors nothing accounts for, ready
 * documents with vectors missing or too many, chunks the index cannot return, documents stuck
 * in `indexing`, and what is still awaiting clean-up. `repairIndex` fixes what it can.
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

export interface UnreachableChunk {
  agent_id: number;
  document_id: number;
  filename: string;
  chunk_index: number;
  id: string;
}

export interface AuditReport {
  checked_documents: number;
  checked_vectors: number;
  orphan_vectors: VectorGroup[];
  missing_vectors: DocumentIssue[];
  count_mismatches: DocumentIssue[];
  // The reachability fields are optional for reports built elsewhere (test fixtures).
  /** Chunks of ready documents queried with their own vector; null when that check was not asked for. */
  reachability_checked?: number | null;
  /** Chunks of ready documents that a query by their own vector does not return (the first few). */
  unreachable_chunks?: UnreachableChunk[];
  unreachable_count?: number;
  stuck_documents: { agent_id: number; document_id: number; filename: string; since: string }[];
  /**
   * Ready documents without a full copy of their vectors for exact ranking (the first few): their
   * agents are served by Chroma's index until the copy is made (the repair makes it).
   */
  exact_copies_missing?: { agent_id: number; document_id: number; filename: string }[];
  exact_copies_missing_count?: number;
  /** Queued removals (the errors of failed attempts are in the server log). */
  awaiting_cleanup: { agent_id: number; document_id: number | null; reason: string; attempts: number; next_attempt_at: string }[];
  ok: boolean;
}

const SAMPLE = 20;
/** Unreachable chunks written again per Chroma call. */
const READD_BATCH = 100;

type Doc = ReturnType<typeof documentStates>[number];
interface Unreachable extends UnreachableChunk {
  collection: Collection;
}

/** Every chunk of the ready documents of this collection's model, queried with its own vector. */
async function checkReachability(collection: Collection, docs: Doc[]): Promise<{ checked: number; unreachable: Unreachable[] }> {
  const model = String(collection.metadata?.embedding_model ?? "");
  const ready = new Map(docs.filter((d) => d.status === "ready" && d.embedding_model === model).map((d) => [d.id, d]));
  const agents = new Set([...ready.values()].map((d) => d.agent_id));
  let checked = 0;
  const unreachable: Unreachable[] = [];
  for (const agentId of agents) {
    for await (const page of listAgentVectors(collection, agentId)) {
      const mine = page.filter((v) => ready.get(v.document_id)?.agent_id === agentId);
      checked += mine.length;
      const lost = await unreachableAmong(collection, agentId, mine);
      // Asked again, so that a document deleted or replaced meanwhile is not reported.
      const again = lost.size === 0 ? [] : await agentVectors(collection, agentId, [...lost]);
      const still = await unreachableAmong(collection, agentId, again);
      const readyNow = readyAmong(
        agentId,
        again.map((v) => v.document_id),
      );
      const found = again.filter((a) => still.has(a.id) && readyNow.has(a.document_id));
      for (const v of found) {
        const doc = ready.get(v.document_id)!;
        unreachable.push({
          collection,
          agent_id: agentId,
          document_id: doc.id,
          filename: doc.filename,
          chunk_index: v.chunk_index,
          id: v.id,
        });
      }
      // Kept, so that a search served by the index ranks them by their exact distance (lib/db/unreachable.ts);
      // those it returns again are forgotten.
      const key = (v: { document_id: number; chunk_index: number }) => ({ document_id: v.document_id, chunk_index: v.chunk_index });
      markUnreachable(agentId, found.map(key));
      clearUnreachable(mine.filter((v) => !still.has(v.id)).map(key));
    }
  }
  return { checked, unreachable };
}

/**
 * What `reachability` adds: every chunk of a ready document queried with its own vector (one
 * query per chunk, batched), which is slow on a large index (measured in docs/performance.md,
 * 'HNSW settings'), so it runs only when asked for (the Index health page's checkbox,
 * `npm run audit -- --reachability`).
 */
export interface AuditOptions {
  reachability?: boolean;
}

export async function auditIndex(options: AuditOptions = {}): Promise<AuditReport> {
  return (await audit(options)).report;
}

/** The report, and every unreachable chunk (the report names the first few) for the repair. */
async function audit(options: AuditOptions): Promise<{ report: AuditReport; unreachable: Unreachable[] }> {
  const docs = new Map(documentStates().map((d) => [d.id, d]));
  const cleanups = pendingCleanups();
  const awaited = (agentId: number, documentId: number) =>
    cleanups.some((c) => c.agent_id === agentId && (c.document_id === null || c.document_id === documentId));
  const active = activeIngests();

  const orphans = new Map<string, VectorGroup>();
  // Which chunks of each ready document Chroma holds: one byte a chunk (a million chunks is a
  // megabyte, where a set of numbers per document took tens), and apart those past its end.
  const found = new Map<number, { chunks: Uint8Array; distinct: number; past: Set<number> }>();
  let checked = 0;
  const collections = await ownCollections();
  for (const collection of collections) {
    const model = String(collection.metadata?.embedding_model ?? "");
    for await (const v of listVectorOwners(collection)) {
      checked++;
      const doc = docs.get(v.document_id);
      const owned = doc && doc.agent_id === v.agent_id && doc.embedding_model === model;
      // A draft's staged version holds its vectors as a ready one does, to be served once published.
      if (owned && (doc.status === "ready" || doc.status === "draft")) {
        let seen = found.get(doc.id);
        if (!seen) found.set(doc.id, (seen = { chunks: new Uint8Array(doc.chunk_count), distinct: 0, past: new Set() }));
        const i = v.chunk_index;
        if (Number.isInteger(i) && i >= 0 && i < doc.chunk_count) {
          if (seen.chunks[i] === 0) seen.distinct++;
          seen.chunks[i] = 1;
        } else seen.past.add(i);
        continue;
      }
      if (owned && doc.status === "indexing") continue; // in progress, or reported as stuck below
      if (awaited(v.agent_id, v.document_id)) continue;
      const key = `${collection.name}|${v.agent_id}|${v.document_id}`;
      const group = orphans.get(key) ?? {
        agent_id: v.agent_id,
        document_id: v.document_id,
        collection: collection.name,
        vectors: 0,
        ids: [],
      };
      group.vectors++;
      if (group.ids.length < SAMPLE) group.ids.push(v.id);
      orphans.set(key, group);
    }
  }

  // Read again after the scan: a document indexed, or a removal queued, while Chroma was read
  // is no orphan. A row gone stays gone (ids are never reused), so what is left is one.
  const queuedNow = pendingCleanups();
  for (const [key, o] of orphans) {
    const row = findDocument(o.agent_id, o.document_id);
    const owned = row && (row.status === "indexing" || ((row.status === "ready" || row.status === "draft") && !docs.has(row.id)));
    const awaitedNow = queuedNow.some((c) => c.agent_id === o.agent_id && (c.document_id === null || c.document_id === o.document_id));
    if (owned || awaitedNow) orphans.delete(key);
  }

  const missing: DocumentIssue[] = [];
  const mismatches: DocumentIssue[] = [];
  for (const doc of docs.values()) {
    if (doc.status !== "ready" && doc.status !== "draft") continue;
    const seen = found.get(doc.id);
    const have = seen ? seen.distinct + seen.past.size : 0;
    const absent: string[] = [];
    let absentCount = 0;
    for (let i = 0; i < doc.chunk_count; i++) {
      if (seen?.chunks[i] === 1) continue;
      absentCount++;
      if (absent.length < SAMPLE) absent.push(chunkId(doc.id, i));
    }
    const issue = { agent_id: doc.agent_id, document_id: doc.id, filename: doc.filename, expected: doc.chunk_count, found: have };
    if (absentCount > 0) missing.push({ ...issue, ids: absent });
    if (have !== doc.chunk_count) mismatches.push({ ...issue, ids: absent });
  }

  let reachable: number | null = options.reachability ? 0 : null;
  const unreachable: Unreachable[] = [];
  for (const collection of options.reachability ? collections : []) {
    const r = await checkReachability(collection, [...docs.values()]);
    reachable = (reachable ?? 0) + r.checked;
    unreachable.push(...r.unreachable);
  }

  const stuck = [...docs.values()]
    .filter((d) => d.status === "indexing" && !active.has(d.id))
    .map((d) => ({ agent_id: d.agent_id, document_id: d.id, filename: d.filename, since: d.updated_at }));
  const uncopied = documentsWithoutVectors(1_000_000).filter((d) => !missing.some((m) => m.document_id === d.id));
  const report = {
    checked_documents: docs.size,
    checked_vectors: checked,
    orphan_vectors: [...orphans.values()],
    missing_vectors: missing,
    count_mismatches: mismatches,
    reachability_checked: reachable,
    unreachable_chunks: unreachable.slice(0, SAMPLE).map(({ collection: _, ...c }) => c),
    unreachable_count: unreachable.length,
    stuck_documents: stuck,
    exact_copies_missing: uncopied
      .slice(0, SAMPLE)
      .map((d) => ({ agent_id: d.agent_id, document_id: d.id, filename: docs.get(d.id)?.filename ?? "" })),
    exact_copies_missing_count: uncopied.length,
    awaiting_cleanup: cleanups.map((c) => ({
      agent_id: c.agent_id,
      document_id: c.document_id,
      reason: c.reason,
      attempts: c.attempts,
      next_attempt_at: c.next_attempt_at,
    })),
  };
  const ok =
    orphans.size === 0 &&
    missing.length === 0 &&
    mismatches.length === 0 &&
    unreachable.length === 0 &&
    stuck.length === 0 &&
    uncopied.length === 0;
  return { report: { ...report, ok }, unreachable };
}

export interface RepairReport {
  removed_orphans: { agent_id: number; document_id: number; vectors: number }[];
  failed_stuck: number[];
  reindexed: { document_id: number; new_document_id: number | null; outcome: string; message: string }[];
  /** Unreachable chunks written again; of those, how many a query by their own vector returns now, and not. */
  readded_chunks?: number;
  repaired_chunks?: number;
  still_unreachable?: number;
  cleanup_left: number;
  after: AuditReport;
}

/**
 * Writes unreachable chunks again (same id, embedding and metadata), so the index inserts them
 * afresh, then queries each with its own vector: how many were written, and how many are still lost.
 */
async function readdUnreachable(chunks: Unreachable[]): Promise<{ readded: number; still: number }> {
  const groups = new Map<string, { collection: Collection; agentId: number; ids: string[] }>();
  for (const c of chunks) {
    const key = `${c.collection.name}|${c.agent_id}`;
    const group = groups.get(key) ?? { collection: c.collection, agentId: c.agent_id, ids: [] };
    group.ids.push(c.id);
    groups.set(key, group);
  }
  let readded = 0;
  let still = 0;
  for (const { collection, agentId, ids } of groups.values()) {
    for (let i = 0; i < ids.length; i += READD_BATCH) {
      const written = await readdVectors(collection, agentId, ids.slice(i, i + READD_BATCH));
      readded += written.length;
      still += (await unreachableAmong(collection, agentId, written)).size;
    }
  }
  return { readded, still };
}

/**
 * Removes orphan vectors, fails stuck documents (queueing their vectors for removal),
 * re-indexes, from their stored text and with their own chunk settings, ready documents whose
 * vectors are incomplete, and writes unreachable chunks again; then audits again.
 */
export async function repairIndex(options: AuditOptions = {}): Promise<RepairReport> {
  const { report: before, unreachable } = await audit(options);
  for (const o of before.orphan_vectors) enqueueCleanup(o.agent_id, o.document_id, o.vectors, "audit: orphan vectors");
  failIndexingDocuments(
    "Indexing stopped and never finished; upload the file again.",
    before.stuck_documents.map((s) => s.document_id),
  );
  const cleanupLeft = await runCleanup({ all: true });
  // What Chroma refused, and checks for late writes, are left to the loop's retries.
  if (cleanupLeft > 0) scheduleCleanup();

  const reindexed: RepairReport["reindexed"] = [];
  const broken = new Map(before.count_mismatches.map((d) => [d.document_id, d]));
  for (const d of broken.values()) {
    const row = findDocument(d.agent_id, d.document_id);
    if (row?.status !== "ready") continue;
    const result = await rechunkDocument(d.agent_id, d.document_id, {
      chunkSize: row.chunk_size,
      chunkOverlap: row.chunk_overlap,
      chunkStrategy: row.chunk_strategy,
    });
    reindexed.push({ document_id: d.document_id, new_document_id: result.document_id, outcome: result.outcome, message: result.message });
  }
  // Re-indexed documents have new vectors already; removed or replaced ones need none.
  const lost = unreachable.filter((c) => !broken.has(c.document_id) && readyAmong(c.agent_id, [c.document_id]).size > 0);
  const { readded, still } = await readdUnreachable(lost);
  await copyMissingVectors();
  return {
    removed_orphans: before.orphan_vectors.map((o) => ({ agent_id: o.agent_id, document_id: o.document_id, vectors: o.vectors })),
    failed_stuck: before.stuck_documents.map((s) => s.document_id),
    reindexed,
    readded_chunks: readded,
    repaired_chunks: readded - still,
    still_unreachable: still,
    cleanup_left: cleanupLeft,
    after: await auditIndex(options),
  };
}
