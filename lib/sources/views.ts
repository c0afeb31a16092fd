import "server-only";
import { getSource, listSources, recentSyncs, sourcePages, type Source, type SourcePage, type SyncRecord } from "../db/sources";

export interface SourceSummary extends Source {
  pages: number;
  proposed_removals: SourcePage[];
  failing: SourcePage[];
  last_sync: SyncRecord | null;
}

function summary(source: Source): SourceSummary {
  const pages = sourcePages(source.id);
  return {
    ...source,
    pages: pages.length,
    proposed_removals: pages.filter((p) => p.state === "removal_proposed"),
    failing: pages.filter((p) => p.error !== null),
    last_sync: recentSyncs(source.id, 1)[0] ?? null,
  };
}

export const sourceSummaries = (agentId: number): SourceSummary[] => listSources(agentId).map(summary);

/** One source with its pages and latest syncs, newest first. */
export function sourceDetail(agentId: number, sourceId: number) {
  const source = getSource(agentId, sourceId);
  return { ...summary(source), page_list: sourcePages(source.id), syncs: recentSyncs(source.id, 20) };
}
