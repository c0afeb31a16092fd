import "server-only";
import type { MetadataPatch } from "../core/metadata";
import { patchDocumentsMetadata } from "../db/metadata";
import { getSource, pageDocument, sourcePages, updateSource, type OnRemoved, type Source } from "../db/sources";
import type { Metadata } from "../core/metadata";

/**
 * Changes a source's settings. New `metadata` replaces the source's, and the documents its pages
 * made already get the keys it sets (and lose those it no longer sets) at once, in one
 * transaction with nothing fetched or re-embedded; keys a page's own meta tags gave stay.
 */
export function changeSource(
  agentId: number,
  id: number,
  patch: { on_removed?: OnRemoved; interval_minutes?: number | null; cross_host?: boolean; metadata?: Metadata },
): Source {
  const before = getSource(agentId, id);
  const source = updateSource(agentId, id, patch);
  if (patch.metadata !== undefined) {
    const change: MetadataPatch = { ...patch.metadata };
    for (const key of Object.keys(before.metadata)) if (!(key in patch.metadata)) change[key] = null;
    const documents = sourcePages(id).flatMap((p) => pageDocument(agentId, p.filename, p.url)?.id ?? []);
    if (documents.length > 0 && Object.keys(change).length > 0) patchDocumentsMetadata(agentId, documents, change);
  }
  return source;
}
