import { describe, expect, it } from "vitest";
import { collectionFor } from "../vector-store/client";
import { chunkText } from "../core/chunking";
import { getDocument, insertDocument } from "../db/documents";
import { embedder } from "../embeddings/configured";
import { searchAgentDocuments } from "../retrieval/retrieve";
import { ingest, newAgent, undeletedCleanups, vectorsOf } from "../../test/helpers";
import { runCleanup } from "../ingest/cleanup";
import { addNotedChunks } from "../ingest/write-chunks";
import { recoverInterruptedIngests } from "./recover";

describe("recoverInterruptedIngests", () => {
  it("fails documents left indexing and removes their partial vectors, leaving ready ones alone", async () => {
    const agent = newAgent("recovery");
    const ready = await ingest(agent.id, "ready.txt", "A ready article about parcels.");
    const text = "partial article ".repeat(20);
    // A document whose ingest stopped after writing two of its chunks.
    const id = insertDocument(
      {
        agent_id: agent.id,
        filename: "partial.txt",
        type: "txt",
        sha256: "x",
        bytes: text.length,
        chunk_size: 100,
        chunk_overlap: 0,
        text,
        embedding_model: embedder().model,
      },
      chunkText(text, 100, 0),
    );
    const chunks = chunkText(text, 100, 0).slice(0, 2);
    const vectors = await embedder().embed(chunks.map((c) => c.text));
    const doc = { agentId: agent.id, documentId: id, filename: "partial.txt" };
    await addNotedChunks(await collectionFor(embedder()), doc, chunks, vectors);
    expect(await vectorsOf(agent.id, id)).toHaveLength(2);

    expect(recoverInterruptedIngests()).toBe(1);
    expect(getDocument(agent.id, id)).toMatchObject({ status: "failed", error: expect.stringMatching(/interrupted/) });
    // Failed at once and hidden from search; its vectors go as soon as the queued clean-up runs.
    expect((await searchAgentDocuments(agent.id, "partial article", 10)).map((r) => r.filename)).toEqual(["ready.txt"]);
    await runCleanup();
    expect(undeletedCleanups(agent.id)).toEqual([]);
    expect(await vectorsOf(agent.id, id)).toEqual([]);
    expect(getDocument(agent.id, ready.document_id!).status).toBe("ready");
    expect(recoverInterruptedIngests()).toBe(0);
  });
});
