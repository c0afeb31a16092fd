import { describe, expect, it } from "vitest";
import { embedder } from "../embeddings/configured";
import { collectionFor } from "../vector-store/client";
import { deleteDocumentVectors } from "../vector-store/chunks";
import { ingest, newAgent, vectorsOf } from "../../test/helpers";
import { auditIndex } from "./audit";
import { recheckState, requestRecheck } from "./after-restart";

describe("the check after Chroma came back", () => {
  it("writes chunks of ready documents that Chroma lost altogether from the app's copy of their vectors", async () => {
    const agent = newAgent("lost writes");
    const lost = await ingest(agent.id, "lost.md", "Lost chunk one about refunds.\n\nLost chunk two about invoices.", 40, 0);
    const kept = await ingest(agent.id, "kept.md", "Kept chunk about parking permits.", 40, 0);
    // As a write Chroma took back when it was killed: the document is ready, its vectors gone.
    await deleteDocumentVectors(await collectionFor(embedder()), agent.id, lost.document_id!);
    expect(await vectorsOf(agent.id, lost.document_id!)).toHaveLength(0);
    expect((await auditIndex()).count_mismatches.map((m) => m.document_id)).toEqual([lost.document_id]);

    const before = recheckState().last_finished_at;
    requestRecheck("a test: Chroma answered again", { follow: false });
    await expect.poll(() => recheckState().last_finished_at, { timeout: 60_000 }).not.toBe(before);
    expect(recheckState().rewritten).toBeGreaterThanOrEqual(lost.chunk_count);
    const back = await vectorsOf(agent.id, lost.document_id!);
    expect(back.map((v) => v.metadata!).sort((a, b) => Number(a.chunk_index) - Number(b.chunk_index))).toEqual(
      Array.from({ length: lost.chunk_count }, (_, k) => ({ agent_id: agent.id, document_id: lost.document_id, chunk_index: k })),
    );
    expect(await vectorsOf(agent.id, kept.document_id!)).toHaveLength(kept.chunk_count);
    const audit = await auditIndex();
    expect(audit.count_mismatches).toEqual([]);
    expect(audit.missing_vectors).toEqual([]);
    expect(audit.orphan_vectors).toEqual([]);
  });
});
