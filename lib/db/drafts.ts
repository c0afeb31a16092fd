import "server-only";
import { conflict, notFound } from "../core/errors";
import type { RetrievalMode } from "../validations/agent";
import { db, now } from "./client";
import { parsedRow, retiredDocument, type DocumentWithText, type RetiredDocument, type Stored } from "./documents";
import { indexDocumentChunks, unindexDocument } from "./keyword-index";
import { enqueueCleanup } from "./vector-cleanup";

/**
 * Drafts: changes staged apart from what an agent serves (lib/db/migrations/026-drafts.ts). A
 * draft's document versions are rows with status 'draft'; publishing makes them ready, retires
 * the versions they replace, removes the staged removals and applies the staged settings, all in
 * one transaction; discarding deletes its rows and queues their vectors for removal.
 */

/** The agent's settings as a draft would set them; an absent field is left as served. */
export interface DraftSettings {
  retrieval_mode?: RetrievalMode;
  /** The no-match cut in the configured model's distances, or null to clear it. */
  cut?: { maxDistance: number; model: string } | null;
}

export interface DraftRow {
  id: number;
  agent_id: number;
  name: string;
  settings: DraftSettings;
  created_at: string;
  updated_at: string;
}

/** A document version a draft holds, with the served version it replaces. */
export interface DraftDocument {
  id: number;
  filename: string;
  status: string;
  chunk_count: number;
  /** 0: the version is switched off (kept, never retrieved). */
  enabled: number;
  /** The served version it replaces; null for a name the agent does not serve. */
  base_id: number | null;
  /** The served version of its name now, when it is another than the base (replaced or deleted meanwhile: undefined). */
  served_id: number | null;
}

export interface DraftRemoval {
  filename: string;
  base_id: number;
  served_id: number | null;
}

const parse = (row: Omit<DraftRow, "settings"> & { settings: string | null }): DraftRow => ({
  ...row,
  settings: row.settings ? (JSON.parse(row.settings) as DraftSettings) : {},
});

export function createDraft(agentId: number, name: string): DraftRow {
  const t = now();
  const { lastInsertRowid } = db()
    .prepare("INSERT INTO drafts (agent_id, name, settings, created_at, updated_at) VALUES (?, ?, NULL, ?, ?)")
    .run(agentId, name, t, t);
  return getDraft(agentId, Number(lastInsertRowid));
}

export function listDrafts(agentId: number): DraftRow[] {
  return (db().prepare("SELECT * FROM drafts WHERE agent_id = ? ORDER BY id").all(agentId) as never[]).map(parse);
}

/** A draft of this agent; another agent's draft is not found. */
export function getDraft(agentId: number, draftId: number): DraftRow {
  const row = db().prepare("SELECT * FROM drafts WHERE id = ? AND agent_id = ?").get(draftId, agentId) as never;
  if (!row) throw notFound(`Draft ${draftId}`);
  return parse(row);
}

const touch = (draftId: number) => db().prepare("UPDATE drafts SET updated_at = ? WHERE id = ?").run(now(), draftId);

export function setDraftSettings(agentId: number, draftId: number, settings: DraftSettings): DraftRow {
  const draft = getDraft(agentId, draftId);
  const given = Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== undefined));
  const merged = { ...draft.settings, ...given };
  db().prepare("UPDATE drafts SET settings = ?, updated_at = ? WHERE id = ?").run(JSON.stringify(merged), now(), draftId);
  return getDraft(agentId, draftId);
}

const SERVED =
  "(SELECT id FROM documents s WHERE s.agent_id = d.agent_id AND s.filename = d.filename AND s.status = 'ready' AND s.draft_id IS NULL ORDER BY s.id DESC LIMIT 1)";

/** The document versions a draft holds (staged, or being written), with the served version of each name now. */
export function draftDocuments(draftId: number): DraftDocument[] {
  return db()
    .prepare(
      `SELECT d.id, d.filename, d.status, d.chunk_count, d.enabled, d.base_id, ${SERVED} AS served_id FROM documents d WHERE d.draft_id = ? ORDER BY d.filename`,
    )
    .all(draftId) as DraftDocument[];
}

export function draftRemovals(draftId: number): DraftRemoval[] {
  return db()
    .prepare(
      `SELECT r.filename, r.base_id, (SELECT id FROM documents s WHERE s.agent_id = dr.agent_id AND s.filename = r.filename
         AND s.status = 'ready' AND s.draft_id IS NULL ORDER BY s.id DESC LIMIT 1) AS served_id
       FROM draft_removals r JOIN drafts dr ON dr.id = r.draft_id WHERE r.draft_id = ? ORDER BY r.filename`,
    )
    .all(draftId) as DraftRemoval[];
}

/** The draft's staged version of a name (ready to publish), or undefined. */
export function draftVersionOf(draftId: number, filename: string): DocumentWithText | undefined {
  const row = db()
    .prepare("SELECT * FROM documents WHERE draft_id = ? AND filename = ? AND status = 'draft' ORDER BY id DESC LIMIT 1")
    .get(draftId, filename) as Stored<DocumentWithText> | undefined;
  return parsedRow(row);
}

/** Whether the draft stages the removal of a name. */
export const draftRemoves = (draftId: number, filename: string): boolean =>
  db().prepare("SELECT 1 FROM draft_removals WHERE draft_id = ? AND filename = ?").get(draftId, filename) !== undefined;

/**
 * Makes a draft version written in full part of its draft: staged, not served. An earlier version
 * of the same name in the draft is retired (its vectors queued for removal), and a staged removal
 * of the name is dropped. False when the row is gone (the draft was discarded meanwhile).
 */
export const stageDraftVersion = (agentId: number, id: number, draftId: number, filename: string): boolean =>
  db().transaction(() => {
    const { changes } = db()
      .prepare("UPDATE documents SET status = 'draft', error = NULL, updated_at = ? WHERE id = ? AND status = 'indexing' AND draft_id = ?")
      .run(now(), id, draftId);
    if (changes !== 1) return false;
    const earlier = db()
      .prepare(
        "SELECT id, chunk_count, status FROM documents WHERE draft_id = ? AND filename = ? AND id < ? AND status IN ('draft', 'failed')",
      )
      .all(draftId, filename, id) as { id: number; chunk_count: number; status: string }[];
    for (const old of earlier) {
      db().prepare("DELETE FROM documents WHERE id = ?").run(old.id);
      if (old.status === "draft") enqueueCleanup(agentId, old.id, old.chunk_count, "replaced in its draft");
    }
    db().prepare("DELETE FROM draft_removals WHERE draft_id = ? AND filename = ?").run(draftId, filename);
    touch(draftId);
    return true;
  })();

/** Stages the removal of a served document in a draft, dropping the draft's own version of its name. */
export const stageRemoval = (agentId: number, draftId: number, served: { id: number; filename: string }) =>
  db().transaction(() => {
    dropDraftVersions(agentId, draftId, served.filename);
    db()
      .prepare("INSERT OR REPLACE INTO draft_removals (draft_id, filename, base_id) VALUES (?, ?, ?)")
      .run(draftId, served.filename, served.id);
    touch(draftId);
  })();

/** Deletes a draft's versions of a name (or all of them) and queues their vectors for removal; run in a transaction. */
function dropDraftVersions(agentId: number, draftId: number, filename?: string) {
  const rows = db()
    .prepare(`SELECT id, chunk_count, status FROM documents WHERE draft_id = ? ${filename === undefined ? "" : "AND filename = ?"}`)
    .all(...(filename === undefined ? [draftId] : [draftId, filename])) as { id: number; chunk_count: number; status: string }[];
  for (const r of rows) {
    db().prepare("DELETE FROM documents WHERE id = ?").run(r.id);
    // A version still being written may have writes in flight: its removal is checked again later.
    enqueueCleanup(agentId, r.id, r.chunk_count, "draft discarded", { lateWrites: r.status === "indexing" });
  }
}

/** Discards a draft: its versions' rows go and their vectors are queued for removal, in one transaction. */
export const discardDraft = (agentId: number, draftId: number) =>
  db().transaction(() => {
    getDraft(agentId, draftId);
    dropDraftVersions(agentId, draftId);
    db().prepare("DELETE FROM drafts WHERE id = ?").run(draftId);
  })();

/** What a publish did: the versions it made ready, the served versions they and the removals retired. */
export interface Published {
  published: { filename: string; document_id: number }[];
  retired: RetiredDocument[];
  settings: DraftSettings;
}

/**
 * Publishes a draft in one transaction: its staged versions become the served ones (the versions
 * they replace retired, their vectors queued for removal), its staged removals are removed, its
 * settings applied, and the draft is gone. Refused with 409, nothing applied, while a version is
 * still being written or when a served document it builds on was replaced or deleted meanwhile.
 */
export const publishDraft = (agentId: number, draftId: number): Published =>
  db().transaction(() => {
    const draft = getDraft(agentId, draftId);
    const docs = draftDocuments(draftId);
    const removals = draftRemovals(draftId);
    const writing = docs.filter((d) => d.status === "indexing").map((d) => d.filename);
    if (writing.length)
      throw conflict(`The draft is still writing ${writing.map((f) => `"${f}"`).join(", ")}; publish it once that is done.`);
    const moved = [
      ...docs.filter((d) => d.status === "draft" && d.served_id !== d.base_id),
      ...removals.filter((r) => r.served_id !== r.base_id),
    ].map((d) => d.filename);
    if (moved.length)
      throw conflict(
        `These documents were changed or deleted since the draft was made from them: ${moved.map((f) => `"${f}"`).join(", ")}. Nothing was published.`,
      );
    const retired: RetiredDocument[] = [];
    const retire = (id: number, reason: string) => {
      const old = retiredDocument(id);
      unindexDocument(db(), agentId, old.id);
      db().prepare("DELETE FROM documents WHERE id = ?").run(old.id);
      enqueueCleanup(agentId, old.id, old.chunk_count, reason);
      retired.push(old);
    };
    const published: Published["published"] = [];
    for (const d of docs) {
      if (d.status !== "draft") {
        // A failed version stays out of what is served; it goes with the draft.
        db().prepare("DELETE FROM documents WHERE id = ?").run(d.id);
        continue;
      }
      if (d.base_id !== null) retire(d.base_id, "replaced by a published draft");
      db().prepare("UPDATE documents SET status = 'ready', draft_id = NULL, base_id = NULL, updated_at = ? WHERE id = ?").run(now(), d.id);
      indexDocumentChunks(db(), agentId, d.id);
      published.push({ filename: d.filename, document_id: d.id });
    }
    for (const r of removals) retire(r.base_id, "removed by a published draft");
    const s = draft.settings;
    if (s.retrieval_mode !== undefined)
      db().prepare("UPDATE agents SET retrieval_mode = ?, updated_at = ? WHERE id = ?").run(s.retrieval_mode, now(), agentId);
    if (s.cut !== undefined)
      db()
        .prepare("UPDATE agents SET max_distance = ?, max_distance_model = ?, updated_at = ? WHERE id = ?")
        .run(s.cut?.maxDistance ?? null, s.cut?.model ?? null, now(), agentId);
    db().prepare("DELETE FROM drafts WHERE id = ?").run(draftId);
    return { published, retired, settings: s };
  })();
