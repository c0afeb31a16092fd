import "server-only";
import { conflict, invalid } from "../core/errors";
import { findDocument, getDocument } from "../db/documents";
import {
  createDraft,
  discardDraft,
  draftDocuments,
  draftRemovals,
  getDraft,
  listDrafts,
  publishDraft,
  draftRemoves,
  setDraftSettings,
  stageRemoval,
  type DraftRow,
  type DraftSettings,
} from "../db/drafts";
import type { ChunkSettings } from "../core/chunking";
import { embedder } from "../embeddings/configured";
import { forgetDocument } from "../retrieval/corpus-stats";
import { inDraft } from "./curate";
import { rechunkDocument, type IngestResult } from "./pipeline";
import { cleanupNow } from "./cleanup";
import { withKeys } from "./keyed-lock";

/**
 * Drafts: content and retrieval changes staged apart from what the agent serves (see
 * lib/db/drafts.ts). Chunk changes and re-chunks stage a version of their document in the draft
 * (lib/ingest/curate.ts and pipeline.ts with a draft), a deletion stages its removal, the cut
 * and the mode are kept with the draft; the search API, ask, questions and evaluation runs see
 * none of it until it is published.
 */

/** A draft as the API shows it: its staged documents and removals, its settings, and whether what it builds on changed. */
export interface DraftView {
  id: number;
  name: string;
  created_at: string;
  updated_at: string;
  settings: DraftRow["settings"];
  documents: {
    filename: string;
    document_id: number;
    status: string;
    chunk_count: number;
    /** False: the version is switched off (published, it is kept but never retrieved). */
    enabled: boolean;
    base_id: number | null;
    base_changed: boolean;
  }[];
  removals: { filename: string; base_id: number; base_changed: boolean }[];
  /** A served document it builds on was replaced or deleted since: publishing is refused until the draft is made again. */
  base_changed: boolean;
}

export function draftView(agentId: number, draftId: number): DraftView {
  const draft = getDraft(agentId, draftId);
  const documents = draftDocuments(draftId).map((d) => ({
    filename: d.filename,
    document_id: d.id,
    status: d.status,
    chunk_count: d.chunk_count,
    enabled: d.enabled !== 0,
    base_id: d.base_id,
    base_changed: d.served_id !== d.base_id,
  }));
  const removals = draftRemovals(draftId).map((r) => ({
    filename: r.filename,
    base_id: r.base_id,
    base_changed: r.served_id !== r.base_id,
  }));
  return {
    id: draft.id,
    name: draft.name,
    created_at: draft.created_at,
    updated_at: draft.updated_at,
    settings: draft.settings,
    documents,
    removals,
    base_changed: documents.some((d) => d.base_changed) || removals.some((r) => r.base_changed),
  };
}

export const draftViews = (agentId: number): DraftView[] => listDrafts(agentId).map((d) => draftView(agentId, d.id));

export function newDraft(agentId: number, name: string): DraftView {
  const trimmed = name.trim();
  if (!trimmed) throw invalid("name: a draft needs a name.");
  if (trimmed.length > 200) throw invalid("name: a draft's name is at most 200 characters.");
  return draftView(agentId, createDraft(agentId, trimmed).id);
}

/** DELETE of a document in a draft: its removal is staged (the served document stays until the draft is published). */
export async function stageDocumentRemoval(agentId: number, draftId: number, documentId: number): Promise<DraftView> {
  getDraft(agentId, draftId);
  const doc = getDocument(agentId, documentId);
  if (doc.draft_id !== null && doc.draft_id !== draftId) throw conflict(`Document ${documentId} belongs to another draft.`);
  const served = doc.draft_id === null ? doc : doc.base_id === null ? undefined : findDocument(agentId, doc.base_id);
  if (!served) throw conflict(`"${doc.filename}" is not served by the agent: discard the draft's version instead.`);
  await withKeys([`${agentId}:name:${doc.filename}`], async () => stageRemoval(agentId, draftId, served));
  await cleanupNow();
  return draftView(agentId, draftId);
}

/**
 * Publishes a draft: all its changes served at once, in one transaction (their vectors are
 * written already); refused with 409, nothing applied, when a document it builds on changed.
 */
export async function publish(agentId: number, draftId: number) {
  const view = draftView(agentId, draftId);
  const names = [...view.documents.map((d) => d.filename), ...view.removals.map((r) => r.filename)];
  // Under the names' locks: no upload or change of them lands between the check and the publish.
  const result = await withKeys(
    names.map((n) => `${agentId}:name:${n}`),
    async () => publishDraft(agentId, draftId),
  );
  for (const old of result.retired) await forgetDocument(agentId, old, embedder());
  await cleanupNow();
  return { published: result.published, removed: result.retired.map((d) => d.filename), settings: result.settings };
}

/** Discards a draft and everything it staged (its versions' vectors included). */
export async function discard(agentId: number, draftId: number): Promise<void> {
  const names = draftDocuments(draftId).map((d) => d.filename);
  await withKeys(
    names.map((n) => `${agentId}:name:${n}`),
    async () => discardDraft(agentId, draftId),
  );
  await cleanupNow();
}

/** A re-chunk staged in a draft: a new version of the draft's version of the document (or of the served one). */
export async function rechunkInDraft(agentId: number, draftId: number, documentId: number, settings: ChunkSettings): Promise<IngestResult> {
  getDraft(agentId, draftId);
  const doc = getDocument(agentId, inDraft(agentId, documentId, draftId));
  if (draftRemoves(draftId, doc.filename)) throw conflict(`Draft ${draftId} removes "${doc.filename}"; it cannot be re-chunked there.`);
  const base = doc.draft_id === null ? doc.id : doc.base_id;
  return rechunkDocument(agentId, doc.id, settings, undefined, { id: draftId, baseId: base });
}

/** The agent's cut and mode staged in a draft; the other settings are not staged. */
export function stageSettings(agentId: number, draftId: number, settings: DraftSettings): DraftView {
  setDraftSettings(agentId, draftId, settings);
  return draftView(agentId, draftId);
}
