import "server-only";
import { AppError, conflict, ERROR_STATUS, invalid, notFound, type ErrorCode } from "../core/errors";
import { pagesOf, type PageRange } from "../core/pages";
import { documentOfChunk, chunkKey } from "../db/chunks";
import { chunkVectorsOf } from "../db/chunk-vectors";
import { filenameOfReplaced, logCuration } from "../db/curation-log";
import { draftRemoves, draftVersionOf } from "../db/drafts";
import { documentCurationExtras, findDocument, readyVersionOf, type DocumentWithText } from "../db/documents";
import { embedder } from "../embeddings/configured";
import type { ChunkChange, NewChunk } from "../validations/curation";
import { versionRows, type CurationItem, type CurationState } from "./carry";
import { withKeys } from "./keyed-lock";
import { indexCuratedVersion } from "./pipeline";
import { curationOf } from "./version-state";
import type { IngestProgress, KnownVectors } from "./write-chunks";

/**
 * Chunk curation: an editor edits, switches off, deletes or adds single chunks, attaches the
 * questions a chunk answers, or switches a whole document off. Each change writes the document
 * again as a new version with the changed chunks (lib/ingest/pipeline.ts indexCuratedVersion),
 * which replaces the old one once searchable, in both indexes and in the exact copy at once:
 * a crash leaves the old version or the new, never a mix. Unchanged chunks keep their ids and
 * their vectors (copied, not embedded again). Every change is logged (lib/db/curation-log.ts)
 * and can be undone (the version keeps the curation it replaced).
 */

/**
 * The document a change names, as a draft sees it: the draft's own version of its name when the
 * draft has one, else the served one. Without a draft, the id as it is.
 */
export function inDraft(agentId: number, documentId: number, draftId: number | undefined): number {
  if (draftId === undefined) return documentId;
  const doc = findDocument(agentId, documentId);
  if (!doc) return documentId;
  if (doc.draft_id !== null && doc.draft_id !== draftId) throw notFound(`Document ${documentId} in draft ${draftId}`);
  return draftVersionOf(draftId, doc.filename)?.id ?? documentId;
}

/** A chunk as the API and the document page show it. */
export interface ChunkView {
  id: number;
  /** Its index in the indexes (a result's `chunk_index`); null while it is switched off. */
  indexed: number | null;
  /** Its place among the document's chunks, from 0. */
  position: number;
  text: string;
  enabled: boolean;
  edited: boolean;
  /** Written by an editor, not made by the chunker. */
  hand_written: boolean;
  questions: string[];
  /** The header of the table whose rows it holds without it, indexed before its text (lib/core/tables.ts); null without one. */
  context: string | null;
  start: number;
  end: number;
  /** The PDF pages it lies on (lib/core/pages.ts); null for a document without pages and a chunk written by hand. */
  pages: PageRange | null;
}

/** A version's chunks as an editor sees them, each with its pages when the version has pages. */
const chunkViews = (state: CurationState, doc: Pick<DocumentWithText, "page_starts">): ChunkView[] =>
  state.chunks.map((c, position) => chunkView(c, position, doc.page_starts));

export const chunkView = (c: CurationItem, position: number, pageStarts: number[] | null = null): ChunkView => ({
  id: c.id ?? -1,
  indexed: c.from?.chunk_index ?? null,
  position,
  text: c.text,
  enabled: c.enabled,
  edited: c.original !== null && c.original !== "",
  hand_written: c.original === "",
  questions: c.questions,
  context: c.context ?? null,
  start: c.start,
  end: c.end,
  pages: pagesOf(pageStarts, c.start, c.end),
});

/** A document's chunks as an editor sees them, with whether the last change can be undone. */
export function documentCuration(doc: DocumentWithText): { enabled: boolean; chunks: ChunkView[]; can_undo: boolean } {
  const state = curationOf(doc);
  return { enabled: state.enabled, chunks: chunkViews(state, doc), can_undo: documentCurationExtras(doc.id).undo !== null };
}

export interface CurationResult {
  /** The document's version after the change (the same id when nothing changed). */
  document_id: number;
  changed: boolean;
  chunks: ChunkView[];
}

/** For a caller that watches the new version being written (a test stopping Chroma mid-write). */
export interface CurationOptions {
  onProgress?: IngestProgress;
  /** Stage the change in this draft (lib/db/drafts.ts) instead of serving it: it changes the draft's version of the document. */
  draftId?: number;
}

type Mutation = (state: CurationState, doc: DocumentWithText) => { action: string; chunkId: number | null; detail: string | null } | null;

const clone = (s: CurationState): CurationState => ({ ...s, chunks: s.chunks.map((c) => ({ ...c })), removed: [...s.removed] });
const findChunk = (state: CurationState, chunkId: number) => {
  const at = state.chunks.findIndex((c) => c.id === chunkId);
  if (at < 0) throw notFound(`Chunk ${chunkId}`);
  return at;
};

/** The vectors of the new version's chunks that are indexed unchanged in the version it replaces, read slice by slice. */
function knownVectors(doc: DocumentWithText, rows: ReturnType<typeof versionRows>): KnownVectors | undefined {
  const model = embedder().model;
  if (doc.embedding_model !== model || rows.from.size === 0) return undefined;
  return (slice) => {
    const sources = slice.flatMap((c) => {
      const at = rows.from.get(c.index);
      return at ? [{ index: c.index, document_id: at.document_id, chunk_index: at.chunk_index }] : [];
    });
    const stored = chunkVectorsOf(sources, model);
    const known = new Map<number, number[]>();
    for (const at of sources) {
      const v = stored.get(chunkKey(at.document_id, at.chunk_index));
      if (v) known.set(at.index, Array.from(v));
    }
    return known;
  };
}

/**
 * Applies one change to a ready document under its name's and content's locks (an upload or a
 * re-chunk of the same name waits, as they wait for each other), and writes it as the new version.
 */
async function curate(
  agentId: number,
  target: number | { chunkId: number },
  actor: string | null,
  mutate: Mutation,
  options: CurationOptions = {},
): Promise<CurationResult> {
  // A chunk is found in whichever version holds it now: a change to another chunk of its
  // document may write a new version while this one waits for the locks.
  const { draftId } = options;
  const locate = () => (typeof target === "number" ? inDraft(agentId, target, draftId) : documentOfChunk(agentId, target.chunkId, draftId));
  for (let attempt = 0; ; attempt++) {
    const documentId = locate();
    if (documentId === undefined) throw notFound(`Chunk ${(target as { chunkId: number }).chunkId}`);
    const first = findDocument(agentId, documentId);
    if (!first) {
      // A version an earlier change replaced: the page or client holding it is out of date.
      const filename = filenameOfReplaced(agentId, documentId);
      const newer = filename ? readyVersionOf(agentId, filename) : undefined;
      if (newer)
        throw conflict(`Document ${documentId} was replaced by a newer version (document ${newer.id}); open that one and try again.`);
      throw notFound(`Document ${documentId}`);
    }
    const result = await withKeys([`${agentId}:name:${first.filename}`, `${agentId}:sha:${first.sha256}`], async () => {
      if (typeof target !== "number" && locate() !== documentId && attempt < 3) return null; // moved meanwhile: find it again
      return applyChange(agentId, documentId, first, actor, mutate, options);
    });
    if (result) return result;
  }
}

async function applyChange(
  agentId: number,
  documentId: number,
  first: DocumentWithText,
  actor: string | null,
  mutate: Mutation,
  options: CurationOptions,
): Promise<CurationResult> {
  const doc = findDocument(agentId, documentId);
  if (!doc) {
    const newer = readyVersionOf(agentId, first.filename);
    throw newer
      ? conflict(`Document ${documentId} was replaced by a newer version (document ${newer.id}) meanwhile; open that one and try again.`)
      : notFound(`Document ${documentId}`);
  }
  const { draftId } = options;
  const changeable =
    draftId === undefined
      ? doc.status === "ready" && doc.draft_id === null
      : doc.draft_id === draftId
        ? doc.status === "draft"
        : doc.status === "ready";
  if (!changeable) throw conflict(`Document ${documentId} is ${doc.status}; only a ready document's chunks can be changed.`);
  if (draftId !== undefined && draftRemoves(draftId, doc.filename))
    throw conflict(`Draft ${draftId} removes "${doc.filename}"; its chunks cannot be changed there.`);
  const before = curationOf(doc);
  const next = clone(before);
  const change = mutate(next, doc);
  if (!change) return { document_id: doc.id, changed: false, chunks: chunkViews(before, doc) };
  const rows = versionRows(next);
  const result = await indexCuratedVersion(
    agentId,
    doc,
    options.onProgress,
    {
      chunks: rows.chunks,
      version: {
        enabled: next.enabled,
        off: rows.off,
        removed: next.removed,
        undo: JSON.stringify(stripFrom(before)),
        note: doc.curation_note,
      },
      known: knownVectors(doc, rows),
    },
    draftId === undefined ? undefined : { id: draftId, baseId: doc.draft_id === null ? doc.id : doc.base_id },
  );
  if (result.status !== "ready" || result.document_id === null) {
    const code = (result.code && result.code in ERROR_STATUS ? result.code : "internal") as ErrorCode;
    throw new AppError(code, `The change was not made: ${result.message}`);
  }
  logCuration(agentId, {
    filename: doc.filename,
    document_id: result.document_id,
    replaced_id: doc.id,
    chunk_id: change.chunkId,
    action: draftId === undefined ? change.action : `${change.action} (draft ${draftId})`,
    detail: change.detail,
    actor,
  });
  const written = findDocument(agentId, result.document_id)!;
  return { document_id: written.id, changed: true, chunks: chunkViews(curationOf(written), written) };
}

/** The curation without where the vectors are (they are gone with the version): what undo restores. */
const stripFrom = (s: CurationState): CurationState => ({ ...s, chunks: s.chunks.map(({ from: _from, ...c }) => c) });

const clip = (t: string, n = 200) => (t.length > n ? `${t.slice(0, n - 1)}…` : t);

/** PATCH /api/agents/{id}/chunks/{chunkId}: text, on/off and questions of one chunk. */
export function changeChunk(
  agentId: number,
  chunkId: number,
  change: ChunkChange,
  actor: string | null,
  options: CurationOptions = {},
): Promise<CurationResult> {
  return curate(
    agentId,
    { chunkId },
    actor,
    (state) => {
      const c = state.chunks[findChunk(state, chunkId)];
      const done: string[] = [];
      if (change.text !== undefined && change.text !== c.text) {
        if (c.original === null) c.original = c.text;
        else if (c.original !== "" && change.text === c.original) c.original = null; // edited back to what the chunker made
        c.text = change.text;
        delete c.from;
        done.push(`text: ${clip(change.text)}`);
      }
      if (change.questions !== undefined && JSON.stringify(change.questions) !== JSON.stringify(c.questions)) {
        c.questions = change.questions;
        delete c.from;
        done.push(`questions: ${change.questions.join(" | ") || "(none)"}`);
      }
      if (change.enabled !== undefined && change.enabled !== c.enabled) {
        c.enabled = change.enabled;
        done.push(change.enabled ? "switched on" : "switched off");
      }
      return done.length ? { action: "change chunk", chunkId, detail: done.join("; ") } : null;
    },
    options,
  );
}

/** POST /api/agents/{id}/documents/{docId}/chunks: a chunk written by hand, after `after` (first without it). */
export function addChunk(
  agentId: number,
  documentId: number,
  chunk: NewChunk,
  actor: string | null,
  options: CurationOptions = {},
): Promise<CurationResult> {
  return curate(
    agentId,
    documentId,
    actor,
    (state) => {
      const at = chunk.after == null ? 0 : findChunk(state, chunk.after) + 1;
      const anchor = state.chunks[at - 1];
      const offset = anchor ? anchor.end : 0;
      state.chunks.splice(at, 0, {
        id: null,
        start: offset,
        end: offset,
        text: chunk.text,
        questions: chunk.questions ?? [],
        original: "",
        enabled: true,
      });
      return { action: "add chunk", chunkId: null, detail: clip(chunk.text) };
    },
    options,
  );
}

/** DELETE /api/agents/{id}/chunks/{chunkId}. A document keeps at least one chunk. */
export function deleteChunk(
  agentId: number,
  chunkId: number,
  actor: string | null,
  options: CurationOptions = {},
): Promise<CurationResult> {
  return curate(
    agentId,
    { chunkId },
    actor,
    (state) => {
      const at = findChunk(state, chunkId);
      if (state.chunks.length === 1) throw invalid("This is the document's only chunk; delete the document instead.");
      const [gone] = state.chunks.splice(at, 1);
      // The chunker's text is remembered, so a re-chunk that makes the same chunk leaves it deleted.
      if (gone.original !== "") state.removed.push(gone.original ?? gone.text);
      return { action: "delete chunk", chunkId, detail: clip(gone.text) };
    },
    options,
  );
}

/** PATCH /api/agents/{id}/documents/{docId} with `enabled`: the whole document on or off. */
export function switchDocument(
  agentId: number,
  documentId: number,
  enabled: boolean,
  actor: string | null,
  options: CurationOptions = {},
): Promise<CurationResult> {
  return curate(
    agentId,
    documentId,
    actor,
    (state) => {
      if (state.enabled === enabled) return null;
      state.enabled = enabled;
      return { action: enabled ? "switch document on" : "switch document off", chunkId: null, detail: null };
    },
    options,
  );
}

/** POST /api/agents/{id}/documents/{docId}/undo: the curation before the last change (undone again, it comes back). */
export function undoLastChange(
  agentId: number,
  documentId: number,
  actor: string | null,
  options: CurationOptions = {},
): Promise<CurationResult> {
  return curate(
    agentId,
    documentId,
    actor,
    (state, doc) => {
      const { undo } = documentCurationExtras(doc.id);
      if (!undo) throw conflict("There is no change to undo on this document.");
      const restored = JSON.parse(undo) as CurationState;
      // Chunks indexed unchanged in the current version keep their vectors.
      const here = new Map(state.chunks.filter((c) => c.id !== null).map((c) => [c.id, c]));
      state.enabled = restored.enabled;
      state.removed = restored.removed;
      state.chunks = restored.chunks.map((c) => {
        const now = c.id !== null ? here.get(c.id) : undefined;
        const same = now?.from && now.text === c.text && JSON.stringify(now.questions) === JSON.stringify(c.questions);
        return same ? { ...c, from: now.from } : c;
      });
      return { action: "undo", chunkId: null, detail: null };
    },
    options,
  );
}
