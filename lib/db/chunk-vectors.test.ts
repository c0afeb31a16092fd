import { describe, expect, it } from "vitest";
import { chunkText } from "../core/chunking";
import { db } from "./client";
import { createAgent } from "./agents";
import { insertDocument } from "./documents";
import { documentVectorRuns, MAX_RUN_CHUNKS, readVectorRuns, storedVectorCount, writeChunkVectors } from "./chunk-vectors";

const DIM = 4;
/** A vector that names its chunk, so a read that mixes up or drops chunks shows. */
const vectorOf = (i: number) => [i, i + 0.25, -i, 1];

function newDocument(name: string): number {
  const agent = createAgent({ name, tools: ["document_search"] });
  const text = "stored vectors ".repeat(40);
  return insertDocument(
    {
      agent_id: agent.id,
      filename: `${name}.md`,
      type: "md",
      sha256: name,
      bytes: text.length,
      chunk_size: 100,
      chunk_overlap: 0,
      text,
      embedding_model: "m",
    },
    chunkText(text, 100, 0, "fixed"),
  );
}

describe("stored runs of chunk vectors", () => {
  it("keep a long document in runs of at most MAX_RUN_CHUNKS, read back a run at a time in chunk order", () => {
    const id = newDocument("long runs");
    const n = 2 * MAX_RUN_CHUNKS + 452;
    const chunks = Array.from({ length: n }, (_, i) => ({ index: i }));
    writeChunkVectors(
      id,
      "m",
      chunks,
      chunks.map((c) => vectorOf(c.index)),
    );

    const rows = db().prepare("SELECT first_chunk, count FROM chunk_vectors WHERE document_id = ? ORDER BY first_chunk").all(id);
    expect(rows).toEqual([
      { first_chunk: 0, count: MAX_RUN_CHUNKS },
      { first_chunk: MAX_RUN_CHUNKS, count: MAX_RUN_CHUNKS },
      { first_chunk: 2 * MAX_RUN_CHUNKS, count: 452 },
    ]);
    expect(storedVectorCount(id, "m")).toBe(n);
    expect(storedVectorCount(id, "other model")).toBe(0);

    // Read two rows a statement: the third read finds the last row alone and ends.
    const runs = [...documentVectorRuns(id, "m", 2)];
    expect(runs.map((r) => [r.first_chunk, r.count, r.dimension])).toEqual(
      rows.map((r) => [(r as { first_chunk: number }).first_chunk, (r as { count: number }).count, DIM]),
    );
    const read: number[][] = runs.flatMap((r) =>
      Array.from({ length: r.count }, (_, i) => Array.from(r.vectors.subarray(i * DIM, (i + 1) * DIM))),
    );
    expect(read).toEqual(chunks.map((c) => vectorOf(c.index)));
    // The same vectors as the reader of whole documents gives.
    expect(runs.map((r) => Array.from(r.vectors))).toEqual(readVectorRuns([id], "m").map((r) => Array.from(r.vectors)));
  });

  it("break a run where chunk indexes skip, and a document removed between two reads ends the read", () => {
    const id = newDocument("gapped runs");
    const chunks = [0, 1, 2, 5, 6].map((index) => ({ index }));
    writeChunkVectors(
      id,
      "m",
      chunks,
      chunks.map((c) => vectorOf(c.index)),
    );
    const reader = documentVectorRuns(id, "m", 1);
    expect(reader.next().value).toMatchObject({ first_chunk: 0, count: 3 });
    db().prepare("DELETE FROM documents WHERE id = ?").run(id);
    expect(reader.next().done).toBe(true);
    expect(storedVectorCount(id, "m")).toBe(0);
  });
});
