import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChromaServerError } from "chromadb";
import { startChroma } from "../../scripts/chroma-server.mjs";

// This file runs its own Chroma so it can damage the index files on disk between a stop and a
// start on the same data directory and port, as an unclean stop of Chroma can leave them.
type Chroma = Awaited<ReturnType<typeof startChroma>>;
let chroma: Chroma;
let dir: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "kb-unreadable-"));
  chroma = await startChroma({ dataDir: dir, restart: false });
  process.env.CHROMA_URL = chroma.url;
});
afterAll(async () => {
  await chroma.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const lib = async () => ({
  ...(await import("../../test/helpers")),
  ...(await import("../db/documents")),
  ...(await import("../embeddings/configured")),
  ...(await import("./health")),
  ...(await import("./rebuild")),
  ...(await import("../core/errors")),
  ...(await import("../vector-store/fetch")), // marks the driver's errors Chroma answers this with
});

/**
 * Chroma writes a collection's graph to disk, index_metadata.pickle beside it, once this many
 * vectors were added since it started (`sync_threshold`; the app leaves Chroma's default): 999
 * leave no file, 1,000 do, in one add or in 16.
 */
const SYNC_THRESHOLD = 1_000;
const pickles = () =>
  fs.readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => path.basename(f) === "index_metadata.pickle");

describe("Chroma cannot read the collection's vector index", () => {
  it("health says the index is unreadable and how to rebuild it, with Chroma's words, and a rebuild repairs it", async () => {
    const { newAgent, ingest, listDocuments, embedder, checkHealth, useHealthDeadline, rebuildIndex, stopRetiringReplaced } = await lib();
    // Only a hung Chroma runs into a deadline, and this one answers: a busy machine must not fail the check.
    const undoDeadline = useHealthDeadline(Infinity);
    try {
      const agent = newAgent("unreadable index");
      // One paragraph a chunk: the smallest document that makes Chroma save its graph.
      const text = Array.from({ length: SYNC_THRESHOLD }, (_, i) => `Entry ${i} of the parcel ledger.`).join("\n\n");
      expect(await ingest(agent.id, "ledger.md", text, 40, 0)).toMatchObject({ status: "ready" });
      expect(listDocuments(agent.id)[0]!.chunk_count).toBe(SYNC_THRESHOLD);
      await expect.poll(pickles, { timeout: 30_000 }).toHaveLength(1);
      expect(await checkHealth()).toMatchObject({ ok: true, chroma: { ok: true } });

      await chroma.stop();
      const pickle = path.join(dir, pickles()[0]!);
      fs.truncateSync(pickle, Math.floor(fs.statSync(pickle).size / 2));
      chroma = await startChroma({ dataDir: dir, port: chroma.port, restart: false });

      const health = await checkHealth();
      expect(health).toMatchObject({ ok: false, chroma: { ok: false, index_unreadable: true }, embedder: { ok: true } });
      const error = health.chroma.error!;
      expect(error).toMatch(
        /^Chroma cannot read the collection's vector index: its files are damaged \(an unclean stop of Chroma can do this\)/,
      );
      expect(error).toContain("searches of agents served by the index fail");
      for (const remedy of ["Index health → Rebuild index…", "`POST /api/audit/rebuild`", "`npm run audit -- --rebuild`"]) {
        expect(error).toContain(remedy);
      }
      // Chroma's own text stays in the server log.
      expect(error).toMatch(/Chroma's own words are in the server log\.$/);
      expect(error).not.toMatch(/hnsw|pickle|EOF/);

      // The remedy it names: a new collection built from the app's copies of the vectors.
      await rebuildIndex(embedder(), "asked for by a test");
      stopRetiringReplaced();
      expect(await checkHealth()).toMatchObject({ ok: true, chroma: { ok: true, index_unreadable: false } });
    } finally {
      undoDeadline();
    }
  });
});

describe("which of Chroma's answers mean its index cannot be read", () => {
  // As Chroma 1.x words them (rust/segment/src/local_hnsw.rs, in local_segment_manager.rs and
  // local_compaction_manager.rs), and as the app's fetch throws them for an answer of 500.
  const reader = "Error constructing hnsw segment reader: Error creating hnsw segment reader";
  it("a pickle file cut short, graph files hnswlib refuses, for a read or a write, anywhere along the causes", async () => {
    const { ChromaNotServingError, unreadableIndexDetail, isUnreadableIndex, AppError, describeFailure } = await lib();
    const query = new ChromaServerError(
      `Error executing plan: Error sending backfill request to compactor: ${reader}: Error deserializing pickle file: eval error at offset 14953: EOF while parsing`,
    );
    expect(unreadableIndexDetail(query)).toBe(
      "Error creating hnsw segment reader: Error deserializing pickle file: eval error at offset 14953: EOF while parsing",
    );
    expect(isUnreadableIndex(new Error("the search failed", { cause: query }))).toBe(true);
    // What a search or an upload that met it tells its user.
    expect(describeFailure(query, "search")).toBe(
      "The search failed: Chroma cannot read the collection's vector index (its files are damaged, as an unclean stop can leave them). " +
        "Rebuild the index from the app's copies of the vectors: Index health → Rebuild index….",
    );
    expect(unreadableIndexDetail(new ChromaServerError(`Error executing plan: ${reader}: Error loading hnsw index`))).toBe(
      "Error creating hnsw segment reader: Error loading hnsw index",
    );
    expect(
      isUnreadableIndex(new ChromaServerError("Error in compaction: Error creating hnsw segment writer: Error deserializing pickle file")),
    ).toBe(true);
    expect(unreadableIndexDetail(new ChromaServerError(`${reader}: Error deserializing pickle file: ${"x".repeat(400)}`))).toHaveLength(
      200,
    );
    // Not damage: a file Chroma could not open, its pool of open indexes, Chroma not serving, the app's own errors.
    for (const err of [
      new ChromaServerError(`${reader}: Error opening pickle file: Too many open files (os error 24)`),
      new ChromaServerError("Error constructing hnsw segment reader: Error reading hnsw pool cache: disk error"),
      new ChromaNotServingError(503, "Service Unavailable"),
      new AppError("internal", `${reader}: Error loading hnsw index`),
      new Error(`${reader}: Error loading hnsw index`),
    ]) {
      expect(isUnreadableIndex(err)).toBe(false);
    }
  });
});
