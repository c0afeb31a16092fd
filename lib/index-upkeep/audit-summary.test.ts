import { describe, expect, it } from "vitest";
import type { AuditReport } from "./audit";
import { auditSummary, repairSummary } from "./audit-summary";

const clean: AuditReport = {
  checked_documents: 1,
  checked_vectors: 12,
  orphan_vectors: [],
  missing_vectors: [],
  count_mismatches: [],
  stuck_documents: [],
  awaiting_cleanup: [],
  ok: true,
};

describe("auditSummary", () => {
  it("says consistent when nothing is wrong", () => {
    expect(auditSummary(clean)).toBe("Checked 1 document and 12 vectors: consistent.");
  });

  it("counts each kind of problem and the queued removals", () => {
    const issue = { agent_id: 1, document_id: 3, filename: "a.md", expected: 4, found: 2, ids: ["3:2"] };
    const report: AuditReport = {
      ...clean,
      ok: false,
      orphan_vectors: [
        { agent_id: 1, document_id: 9, collection: "c", vectors: 5, ids: [] },
        { agent_id: 2, document_id: 10, collection: "c", vectors: 1, ids: [] },
      ],
      missing_vectors: [issue],
      count_mismatches: [issue],
      stuck_documents: [{ agent_id: 1, document_id: 4, filename: "b.md", since: "" }],
      awaiting_cleanup: [{ agent_id: 1, document_id: null, reason: "agent deleted", attempts: 2, next_attempt_at: "" }],
      exact_copies_missing: [{ agent_id: 1, document_id: 5, filename: "c.md" }],
      exact_copies_missing_count: 3,
    };
    expect(auditSummary(report)).toBe(
      "Checked 1 document and 12 vectors: 6 orphan vectors from 2 documents, 1 document with missing vectors, 1 count mismatch, " +
        "1 document stuck indexing, 3 documents not yet copied for exact ranking; 1 removal awaiting clean-up.",
    );
  });
});

describe("repairSummary", () => {
  it("reports what was done, counting only successful re-indexes", () => {
    const summary = repairSummary({
      removed_orphans: [{ agent_id: 1, document_id: 9, vectors: 3 }],
      failed_stuck: [],
      reindexed: [
        { document_id: 3, new_document_id: 11, outcome: "replaced", message: "" },
        { document_id: 5, new_document_id: null, outcome: "failed", message: "The embedding provider failed" },
      ],
      cleanup_left: 0,
      after: clean,
    });
    expect(summary).toBe(
      "Repair removed 3 orphan vectors from 1 document, marked 0 stuck documents failed, re-indexed 1 of 2 incomplete documents; " +
        "0 removals still awaiting clean-up.",
    );
  });
});
