import "server-only";
import { curatedChunks } from "../db/chunks";
import { documentCurationExtras, type DocumentRow } from "../db/documents";
import type { CurationState } from "./carry";

/** A document version's curation as it is stored: its chunks on and off, in order, with where each indexed one's vector is. */
export function curationOf(doc: Pick<DocumentRow, "id" | "enabled">): CurationState {
  const extras = documentCurationExtras(doc.id);
  return {
    enabled: doc.enabled !== 0,
    removed: extras.removed,
    chunks: curatedChunks(doc.id).map((c) => ({
      id: c.id,
      start: c.start,
      end: c.end,
      text: c.text,
      questions: c.questions,
      original: c.original,
      enabled: c.enabled,
      ...(c.context ? { context: c.context } : {}),
      ...(c.index !== null ? { from: { document_id: doc.id, chunk_index: c.index } } : {}),
    })),
  };
}
