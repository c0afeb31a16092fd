import "server-only";
import { conflict, notFound } from "../core/errors";
import type { Metadata } from "../core/metadata";
import { db, now } from "./client";

export type SourceKind = "sitemap" | "urls";
export type OnRemoved = "propose" | "remove";

export interface SourceRow {
  id: number;
  agent_id: number;
  kind: SourceKind;
  /** The sitemap's URL, or the page URLs as a JSON array. */
  location: string;
  on_removed: OnRemoved;
  interval_minutes: number | null;
  /** 1: a sitemap's entries on other public hosts are fetched too; 0: they are left out. */
  cross_host: number;
  created_at: string;
  /** Metadata every page of the source gets (JSON), under what each page's own meta tags say. */
  metadata: string;
}

export interface Source extends Omit<SourceRow, "location" | "cross_host" | "metadata"> {
  cross_host: boolean;
  metadata: Metadata;
  sitemap: string | null;
  urls: string[] | null;
}

export interface SourcePage {
  source_id: number;
  url: string;
  filename: string;
  sha256: string | null;
  etag: string | null;
  last_modified: string | null;
  fetched_at: string | null;
  state: "active" | "removal_proposed";
  error: string | null;
}

export type SyncStatus = "running" | "done" | "failed";
export interface SyncCounts {
  seen: number;
  added: number;
  changed: number;
  removed: number;
  proposed: number;
  unchanged: number;
  failed: number;
}
export interface SyncRecord extends SyncCounts {
  id: number;
  source_id: number;
  trigger: "manual" | "schedule";
  status: SyncStatus;
  started_at: string;
  finished_at: string | null;
  failures: { url: string; reason: string }[];
  error: string | null;
  /** Why a sync that finished read less than its whole source (a bound it stopped at, entries left out). */
  note: string | null;
}

const toSource = (r: SourceRow): Source => {
  const { location, ...rest } = r;
  return {
    ...rest,
    cross_host: r.cross_host === 1,
    metadata: JSON.parse(r.metadata) as Metadata,
    sitemap: r.kind === "sitemap" ? location : null,
    urls: r.kind === "urls" ? (JSON.parse(location) as string[]) : null,
  };
};

export function createSource(
  agentId: number,
  s: {
    kind: SourceKind;
    location: string;
    on_removed: OnRemoved;
    interval_minutes: number | null;
    cross_host?: boolean;
    metadata?: Metadata;
  },
): Source {
  const { lastInsertRowid } = db()
    .prepare(
      "INSERT INTO sources (agent_id, kind, location, on_removed, interval_minutes, cross_host, created_at, metadata) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .run(agentId, s.kind, s.location, s.on_removed, s.interval_minutes, s.cross_host ? 1 : 0, now(), JSON.stringify(s.metadata ?? {}));
  return getSource(agentId, Number(lastInsertRowid));
}

export function listSources(agentId: number): Source[] {
  return (db().prepare("SELECT * FROM sources WHERE agent_id = ? ORDER BY id").all(agentId) as SourceRow[]).map(toSource);
}

/** A source of this agent only: another agent's id is reported as not found. */
export function getSource(agentId: number, id: number): Source {
  const row = db().prepare("SELECT * FROM sources WHERE id = ? AND agent_id = ?").get(id, agentId) as SourceRow | undefined;
  if (!row) throw notFound(`Source ${id} of agent ${agentId}`);
  return toSource(row);
}

export function updateSource(
  agentId: number,
  id: number,
  patch: { on_removed?: OnRemoved; interval_minutes?: number | null; cross_host?: boolean; metadata?: Metadata },
): Source {
  getSource(agentId, id);
  if (patch.metadata !== undefined) db().prepare("UPDATE sources SET metadata = ? WHERE id = ?").run(JSON.stringify(patch.metadata), id);
  if (patch.cross_host !== undefined)
    db()
      .prepare("UPDATE sources SET cross_host = ? WHERE id = ?")
      .run(patch.cross_host ? 1 : 0, id);
  if (patch.on_removed !== undefined) db().prepare("UPDATE sources SET on_removed = ? WHERE id = ?").run(patch.on_removed, id);
  if (patch.interval_minutes !== undefined)
    db().prepare("UPDATE sources SET interval_minutes = ? WHERE id = ?").run(patch.interval_minutes, id);
  return getSource(agentId, id);
}

/** Deletes the source with its pages and syncs; the documents it made stay. Not while it syncs. */
export function deleteSource(agentId: number, id: number): void {
  getSource(agentId, id);
  db().transaction(() => {
    if (db().prepare("SELECT 1 FROM source_syncs WHERE source_id = ? AND status = 'running'").get(id)) {
      throw conflict("A sync of this source is running; delete the source once it has finished.");
    }
    db().prepare("DELETE FROM sources WHERE id = ? AND agent_id = ?").run(id, agentId);
  })();
}

export function sourcePages(sourceId: number): SourcePage[] {
  return db().prepare("SELECT * FROM source_pages WHERE source_id = ? ORDER BY url").all(sourceId) as SourcePage[];
}

export function upsertPage(p: SourcePage): void {
  db()
    .prepare(
      `INSERT INTO source_pages (source_id, url, filename, sha256, etag, last_modified, fetched_at, state, error)
       VALUES (@source_id, @url, @filename, @sha256, @etag, @last_modified, @fetched_at, @state, @error)
       ON CONFLICT (source_id, url) DO UPDATE SET filename = @filename, sha256 = @sha256, etag = @etag,
         last_modified = @last_modified, fetched_at = @fetched_at, state = @state, error = @error`,
    )
    .run(p);
}

export function deletePage(sourceId: number, url: string): void {
  db().prepare("DELETE FROM source_pages WHERE source_id = ? AND url = ?").run(sourceId, url);
}

/** The agent's ready document of this name that came from this page, if any. */
export function pageDocument(agentId: number, filename: string, url: string): { id: number; sha256: string } | undefined {
  return db()
    .prepare(
      "SELECT id, sha256 FROM documents WHERE agent_id = ? AND filename = ? AND source_url = ? AND status = 'ready' ORDER BY id DESC LIMIT 1",
    )
    .get(agentId, filename, url) as { id: number; sha256: string } | undefined;
}

/** A page fetched again unchanged: its document says when. */
export function touchFetched(documentId: number, at: string): void {
  db().prepare("UPDATE documents SET fetched_at = ? WHERE id = ?").run(at, documentId);
}

type SyncRow = Omit<SyncRecord, "failures"> & { failures: string };
const toSync = (r: SyncRow): SyncRecord => ({ ...r, failures: JSON.parse(r.failures) });

/** Starts a sync record; null when one of this source is running already. */
export function startSync(sourceId: number, trigger: SyncRecord["trigger"]): SyncRecord | null {
  return db().transaction(() => {
    if (db().prepare("SELECT 1 FROM source_syncs WHERE source_id = ? AND status = 'running'").get(sourceId)) return null;
    const { lastInsertRowid } = db()
      .prepare("INSERT INTO source_syncs (source_id, trigger, status, started_at) VALUES (?, ?, 'running', ?)")
      .run(sourceId, trigger, now());
    return getSync(Number(lastInsertRowid))!;
  })();
}

export function getSync(id: number): SyncRecord | undefined {
  const row = db().prepare("SELECT * FROM source_syncs WHERE id = ?").get(id) as SyncRow | undefined;
  return row && toSync(row);
}

export function recentSyncs(sourceId: number, limit = 20): SyncRecord[] {
  return (db().prepare("SELECT * FROM source_syncs WHERE source_id = ? ORDER BY id DESC LIMIT ?").all(sourceId, limit) as SyncRow[]).map(
    toSync,
  );
}

/** Counts so far, so the page can show a running sync's progress. */
export function saveSyncProgress(id: number, counts: SyncCounts, failures: SyncRecord["failures"]): void {
  db()
    .prepare(
      `UPDATE source_syncs SET seen = @seen, added = @added, changed = @changed, removed = @removed, proposed = @proposed,
         unchanged = @unchanged, failed = @failed, failures = @failures WHERE id = @id`,
    )
    .run({ ...counts, failures: JSON.stringify(failures), id });
}

export function finishSync(
  id: number,
  counts: SyncCounts,
  failures: SyncRecord["failures"],
  error: string | null,
  note: string | null = null,
): SyncRecord {
  saveSyncProgress(id, counts, failures);
  db()
    .prepare("UPDATE source_syncs SET status = ?, error = ?, note = ?, finished_at = ? WHERE id = ?")
    .run(error ? "failed" : "done", error, note, now(), id);
  return getSync(id)!;
}

/** Syncs cut off by a stop: failed, so a new one can start and finishes the job. */
export function failInterruptedSyncs(): number {
  return db()
    .prepare(
      "UPDATE source_syncs SET status = 'failed', error = 'The app stopped during this sync; the next sync finishes it.', finished_at = ? WHERE status = 'running'",
    )
    .run(now()).changes;
}

/** Sources whose interval has passed since their latest sync started (or that never synced). */
export function dueSources(at: Date): SourceRow[] {
  const rows = db()
    .prepare(
      `SELECT s.*, (SELECT MAX(started_at) FROM source_syncs WHERE source_id = s.id) AS last_started,
         EXISTS (SELECT 1 FROM source_syncs WHERE source_id = s.id AND status = 'running') AS running
       FROM sources s WHERE s.interval_minutes IS NOT NULL`,
    )
    .all() as (SourceRow & { last_started: string | null; running: number })[];
  return rows.filter((r) => !r.running && (!r.last_started || Date.parse(r.last_started) + r.interval_minutes! * 60_000 <= at.getTime()));
}
