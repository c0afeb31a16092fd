import "server-only";
import { db, now } from "./client";

/**
 * What the index check after a Chroma crash (lib/index-upkeep/after-restart.ts) keeps in SQLite.
 *
 * - `vector_writes`: every write of chunk vectors to Chroma, newest last (trimmed to the newest
 *   KEPT_WRITES). A crash can only damage what Chroma had not yet made durable in its index, and
 *   Chroma persists its graph after every `sync_threshold` additions (lib/vector-store/client.ts),
 *   so the newest writes are what is suspect, however large the index.
 * - `suspect_documents`: documents whose chunks every query of their agent ranks by their exact
 *   distance from the app's copy (lib/retrieval/index-candidates.ts) until the check has looked at them.
 *   While `suspect_writes_until` lies ahead (for a while after a restart), every vector write
 *   makes its document suspect, so documents written right after a crash are covered too.
 * - the full check's place: the documents below `full_below` are still to be checked in the
 *   background, newest first, across app restarts.
 */

/** Writes kept; the suspect window is far smaller. */
const KEPT_WRITES = 50_000;
/** The log is trimmed once every this many writes. */
const TRIM_EVERY = 1_000;

/**
 * Records a write of `chunks` vectors of one document to a collection (called by every vector
 * write of chunks, to the app's collections and to a sweep's alike: only the followed collection's
 * count). `suspect` false: the check itself wrote them and checks them again.
 */
export function noteVectorWrite(
  write: { collection: string; model: string; agentId: number; documentId: number; chunks: number },
  suspect = true,
): void {
  const d = db();
  const { collection, model, agentId, documentId, chunks } = write;
  const t = now();
  const seq = Number(
    d
      .prepare("INSERT INTO vector_writes (collection, agent_id, document_id, chunks) VALUES (?, ?, ?, ?)")
      .run(collection, agentId, documentId, chunks).lastInsertRowid,
  );
  if (suspect) {
    d.prepare(
      `INSERT INTO suspect_documents (document_id, agent_id, model, since)
       SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM index_check WHERE suspect_writes_until > ? AND followed_collection = ?)
         AND EXISTS (SELECT 1 FROM documents WHERE id = ? AND agent_id = ?)
       ON CONFLICT (document_id) DO NOTHING`,
    ).run(documentId, agentId, model, t, t, collection, documentId, agentId);
  }
  if (seq % TRIM_EVERY === 0) d.prepare("DELETE FROM vector_writes WHERE seq <= ?").run(seq - KEPT_WRITES);
}

/**
 * Makes suspect the documents of the newest writes to `collection` (the app's collection of
 * `model`) that hold `windowChunks` chunks, and the newest documents of that model holding as
 * many (which also covers writes from before the log existed). Returns the lowest id among the
 * latter: every document below it is older than the window (null when the model has none).
 */
export function suspectNewest(model: string, collection: string, windowChunks: number): number | null {
  const d = db();
  const t = now();
  return d.transaction(() => {
    d.prepare(
      `INSERT INTO suspect_documents (document_id, agent_id, model, since)
       SELECT w.document_id, w.agent_id, ?, ? FROM (
         SELECT document_id, agent_id, SUM(chunks) OVER (ORDER BY seq DESC ROWS UNBOUNDED PRECEDING) - chunks AS newer
         FROM vector_writes WHERE collection = ?
       ) w JOIN documents doc ON doc.id = w.document_id AND doc.agent_id = w.agent_id
       WHERE w.newer < ? AND doc.embedding_model = ?
       ON CONFLICT (document_id) DO NOTHING`,
    ).run(model, t, collection, windowChunks, model);
    // Newest first, a page at a time, until the window is full: never the whole table.
    const page = d.prepare(
      "SELECT id, agent_id, chunk_count FROM documents WHERE embedding_model = ? AND id < ? ORDER BY id DESC LIMIT 500",
    );
    const insert = d.prepare(
      "INSERT INTO suspect_documents (document_id, agent_id, model, since) VALUES (?, ?, ?, ?) ON CONFLICT (document_id) DO NOTHING",
    );
    let below = Number.MAX_SAFE_INTEGER;
    let lowest: number | null = null;
    for (let chunks = 0; chunks < windowChunks;) {
      const rows = page.all(model, below) as SuspectDocument[];
      if (rows.length === 0) break;
      for (const r of rows) {
        if (chunks >= windowChunks) break;
        insert.run(r.id, r.agent_id, model, t);
        chunks += r.chunk_count;
        lowest = r.id;
      }
      below = rows[rows.length - 1].id;
    }
    return lowest;
  })();
}

export interface SuspectDocument {
  id: number;
  agent_id: number;
  chunk_count: number;
}

/** Suspect documents of `model` that are ready, newest first, with their chunk counts. */
export function readySuspects(model: string): SuspectDocument[] {
  return db()
    .prepare(
      `SELECT d.id, d.agent_id, d.chunk_count FROM suspect_documents s CROSS JOIN documents d ON d.id = s.document_id
       WHERE s.model = ? AND d.status = 'ready' AND d.embedding_model = ? ORDER BY d.id DESC`,
    )
    .all(model, model) as SuspectDocument[];
}

/**
 * How many suspect documents of `model` are ready (the check's work still to do). CROSS JOIN keeps
 * SQLite's loop over the few suspects: with a plain JOIN it walked every ready document through
 * the status index and looked each up among the suspects (100-140 ms at 16,648 documents, on
 * every health check; 0.05 ms this way). readySuspects reads the same way.
 */
export function readySuspectCount(model: string): number {
  return (
    db()
      .prepare(
        `SELECT COUNT(*) AS n FROM suspect_documents s CROSS JOIN documents d ON d.id = s.document_id
         WHERE s.model = ? AND d.status = 'ready' AND d.embedding_model = ?`,
      )
      .get(model, model) as { n: number }
  ).n;
}

/** The agent's ready suspect documents of `model` (a query ranks their chunks exactly). */
export function suspectDocumentsOf(agentId: number, model: string): number[] {
  return (
    db()
      .prepare(
        `SELECT s.document_id AS id FROM suspect_documents s JOIN documents d ON d.id = s.document_id
         WHERE s.agent_id = ? AND s.model = ? AND d.status = 'ready' ORDER BY s.document_id`,
      )
      .all(agentId, model) as { id: number }[]
  ).map((r) => r.id);
}

/** The check has looked at these documents. */
export function clearSuspects(documentIds: number[]): void {
  const remove = db().prepare("DELETE FROM suspect_documents WHERE document_id = ?");
  db().transaction(() => {
    for (const id of documentIds) remove.run(id);
  })();
}

/** Until when every vector write to `collection` makes its document suspect. */
export function suspectWritesUntil(until: string, collection: string): void {
  db().prepare("UPDATE index_check SET suspect_writes_until = ?, followed_collection = ? WHERE id = 1").run(until, collection);
}

export function suspectWritesUntilNow(): string | null {
  const row = db().prepare("SELECT suspect_writes_until AS t FROM index_check WHERE id = 1").get() as { t: string | null };
  return row.t !== null && row.t > now() ? row.t : null;
}

export interface FullCheck {
  model: string | null;
  /** Documents with a lower id are still to be checked; null when no full check is pending. */
  below: number | null;
  checked: number;
  total: number;
  started_at: string | null;
  finished_at: string | null;
}

export function fullCheck(): FullCheck {
  const r = db()
    .prepare("SELECT full_model, full_below, full_checked, full_total, full_started_at, full_finished_at FROM index_check WHERE id = 1")
    .get() as {
    full_model: string | null;
    full_below: number | null;
    full_checked: number;
    full_total: number;
    full_started_at: string | null;
    full_finished_at: string | null;
  };
  return {
    model: r.full_model,
    below: r.full_below,
    checked: r.full_checked,
    total: r.full_total,
    started_at: r.full_started_at,
    finished_at: r.full_finished_at,
  };
}

/**
 * Starts a full check of `model` over the ready documents below `below` (all of them when
 * null), from the newest, replacing one under way.
 */
export function startFullCheck(model: string, below: number | null): void {
  const d = db();
  const top = below ?? Number.MAX_SAFE_INTEGER;
  const { chunks } = d
    .prepare("SELECT COALESCE(SUM(chunk_count), 0) AS chunks FROM documents WHERE status = 'ready' AND embedding_model = ? AND id < ?")
    .get(model, top) as { chunks: number };
  d.prepare(
    "UPDATE index_check SET full_model = ?, full_below = ?, full_checked = 0, full_total = ?, full_started_at = ?, full_finished_at = NULL WHERE id = 1",
  ).run(model, top, chunks, now());
}

/** The next ready documents below `below` holding about `chunks` chunks (at least one document), newest first. */
export function fullCheckStep(model: string, below: number, chunks: number): SuspectDocument[] {
  // Every document holds a chunk at least, so `chunks` documents are enough; no more are read.
  const rows = db()
    .prepare(
      "SELECT id, agent_id, chunk_count FROM documents WHERE status = 'ready' AND embedding_model = ? AND id < ? ORDER BY id DESC LIMIT ?",
    )
    .all(model, below, Math.max(1, chunks)) as SuspectDocument[];
  const step: SuspectDocument[] = [];
  let n = 0;
  for (const r of rows) {
    if (step.length > 0 && n + r.chunk_count > chunks) break;
    step.push(r);
    n += r.chunk_count;
  }
  return step;
}

/** The full check went past these documents: the place moves below the lowest. */
export function fullCheckAdvance(below: number, checkedChunks: number): void {
  db().prepare("UPDATE index_check SET full_below = ?, full_checked = full_checked + ? WHERE id = 1").run(below, checkedChunks);
}

export function fullCheckDone(): void {
  db().prepare("UPDATE index_check SET full_below = NULL, full_finished_at = ? WHERE id = 1").run(now());
}
