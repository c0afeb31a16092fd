import { plural } from "../format/plural";
import type { AuditReport, RepairReport } from "./audit";

/** Plain-language one-liners for the audit and repair reports (shared by the page and its tests). */

export { plural };

export function auditSummary(r: AuditReport): string {
  const reach = r.reachability_checked != null ? `, queried ${plural(r.reachability_checked, "chunk")} with their own vector` : "";
  const checked = `Checked ${plural(r.checked_documents, "document")} and ${plural(r.checked_vectors, "vector")}${reach}`;
  const orphanVectors = r.orphan_vectors.reduce((sum, g) => sum + g.vectors, 0);
  const problems = [
    r.orphan_vectors.length > 0 && `${plural(orphanVectors, "orphan vector")} from ${plural(r.orphan_vectors.length, "document")}`,
    r.missing_vectors.length > 0 && `${plural(r.missing_vectors.length, "document")} with missing vectors`,
    r.count_mismatches.length > 0 && plural(r.count_mismatches.length, "count mismatch", "count mismatches"),
    (r.unreachable_count ?? 0) > 0 && plural(r.unreachable_count ?? 0, "unreachable chunk"),
    r.stuck_documents.length > 0 && `${plural(r.stuck_documents.length, "document")} stuck indexing`,
    (r.exact_copies_missing_count ?? 0) > 0 && `${plural(r.exact_copies_missing_count!, "document")} not yet copied for exact ranking`,
  ].filter((p): p is string => Boolean(p));
  const queued = r.awaiting_cleanup.length > 0 ? `; ${plural(r.awaiting_cleanup.length, "removal")} awaiting clean-up` : "";
  return `${checked}: ${problems.length === 0 ? "consistent" : problems.join(", ")}${queued}.`;
}

export function repairSummary(r: RepairReport): string {
  const removed = r.removed_orphans.reduce((sum, o) => sum + o.vectors, 0);
  const reindexed = r.reindexed.filter((d) => d.outcome === "indexed" || d.outcome === "replaced").length;
  const parts = [
    `removed ${plural(removed, "orphan vector")} from ${plural(r.removed_orphans.length, "document")}`,
    `marked ${plural(r.failed_stuck.length, "stuck document")} failed`,
    `re-indexed ${reindexed} of ${plural(r.reindexed.length, "incomplete document")}`,
  ];
  return `Repair ${parts.join(", ")}; ${plural(r.cleanup_left, "removal")} still awaiting clean-up.`;
}
