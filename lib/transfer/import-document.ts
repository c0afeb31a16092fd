import "server-only";
import type { Collection } from "chromadb";
import type { Embedder } from "../embeddings";
import { AppError, vectorStoreUnavailable } from "../http/errors";
import { commitReady, deleteDocumentRow, insertDocument, setDocumentCreatedAt } from "../db/documents";
import { writeChunkVectors } from "../db/chunk-vectors";
import { groupedWrite } from "../db/client";
import { addChunks } from "../vector-store/chunks";
import { activeIngests, indexExtractedText } from "../ingest/pipeline";
import { cleanupNow } from "../ingest/cleanup";
import { withKeys } from "../ingest/keyed-lock";
import { forgetDocument } from "../retrieval/corpus-stats";
import { assertChunkSettings, type Chunk } from "../ingest/chunking";
import { MAX_CHUNKS_PER_DOCUMENT } from "../db/keyword-index";
import { sanitizeDocumentPath } from "../validations/filename";
import { vectorsLineSchema, type DocumentLine, type VectorsLine } from "./format";
import { badLine, lineAs, type FileLine } from "./lines";

export interface DocumentTarget {
  agentId: number;
  model: Embedder;
  collection: Collection;
  /** The file's vectors are of this instance's model and dimension. */
  sameModel: boolean;
  dimension: number;
}

/** The next line, which must be the named document's next vectors line. */
export type NextVectors = (filename: string) => Promise<FileLine>;

/** The document line's chunks with their text, checked against the text they point into. */
function chunksOf(line: DocumentLine, n: number): Chunk[] {
  const { text, chunk_size, chunk_overlap, filename } = line.document;
  if (sanitizeDocumentPath(filename) !== filename) throw badLine(n, `the filename "${filename}" is not one this app stores.`);
  try {
    assertChunkSettings(chunk_size, chunk_overlap);
  } catch (err) {
    throw badLine(n, (err as Error).message);
  }
  if (line.chunks.length >= MAX_CHUNKS_PER_DOCUMENT) throw badLine(n, `"${filename}" has more chunks than one document may hold.`);
  return line.chunks.map((c, i) => {
    if (c.index !== i || c.start > c.end || c.end > text.length) throw badLine(n, `chunk ${i} of "${filename}" does not fit its text.`);
    return { index: i, start: c.start, end: c.end, text: text.slice(c.start, c.end) };
  });
}

/** A vectors line's values as one vector per chunk; float32 read back as stored, bit for bit. */
function decodeVectors(v: VectorsLine, n: number): number[][] {
  const bytes = Buffer.from(v.data, "base64");
  const expected = v.count * v.dimension * 4;
  if (bytes.byteLength !== expected || v.data.length !== Math.ceil(expected / 3) * 4) {
    throw badLine(n, `the vectors do not hold ${v.count} × ${v.dimension} float32 values.`);
  }
  const values = new Float32Array(expected / 4);
  new Uint8Array(values.buffer).set(bytes);
  const out: number[][] = [];
  for (let i = 0; i < v.count; i++) {
    const row = Array.from(values.subarray(i * v.dimension, (i + 1) * v.dimension));
    if (!row.every(Number.isFinite)) throw badLine(n, "the vectors hold a value that is not a finite number.");
    out.push(row);
  }
  return out;
}

/** Reads the document's vectors lines, in chunk order, handing each to `use` (or checking and skipping them). */
async function readVectors(chunks: Chunk[], filename: string, next: NextVectors, use?: (slice: Chunk[], vectors: number[][]) => Promise<void>, dimension?: number) {
  for (let covered = 0; covered < chunks.length; ) {
    const line = await next(filename);
    const v = lineAs(vectorsLineSchema, line);
    if (v.first_chunk !== covered || covered + v.count > chunks.length) {
      throw badLine(line.number, `vectors for chunks ${v.first_chunk}-${v.first_chunk + v.count - 1} of "${filename}", expected from chunk ${covered} of ${chunks.length}.`);
    }
    if (use) {
      if (v.dimension !== dimension) throw badLine(line.number, `vectors of ${v.dimension} dimensions, the file's model has ${dimension}.`);
      await use(chunks.slice(covered, covered + v.count), decodeVectors(v, line.number));
    }
    covered += v.count;
  }
}

/**
 * Writes one document of an agent file: with its own vectors when they are of this instance's
 * model (Chroma and the exact copy get them as stored, then the commit makes the document
 * ready), otherwise from its text through the ingest pipeline, which embeds it. Returns the
 * new document's id and chunk count, and whether it was embedded again. A failure leaves the
 * document's vectors queued for removal; the caller removes the agent.
 */
export async function importDocument(
  target: DocumentTarget,
  line: DocumentLine,
  n: number,
  next: NextVectors,
): Promise<{ id: number; chunks: number; reEmbedded: boolean }> {
  const { agentId, model } = target;
  const d = line.document;
  const chunks = chunksOf(line, n);
  const settings = { chunkSize: d.chunk_size, chunkOverlap: d.chunk_overlap, chunkStrategy: d.chunk_strategy };
  if (!(line.vectors && target.sameModel && d.embedding_model === model.model)) {
    if (line.vectors) await readVectors(chunks, d.filename, next);
    const result = await indexExtractedText(agentId, d, settings);
    if (result.status !== "ready" || result.document_id === null) {
      if (result.code === "vector_store_unavailable") throw vectorStoreUnavailable();
      if (result.code === "embedding_failed") throw new AppError("embedding_failed", `"${d.filename}" (line ${n}): ${result.message}`);
      throw badLine(n, `"${d.filename}" could not be indexed: ${result.message}`);
    }
    setDocumentCreatedAt(agentId, result.document_id, d.created_at);
    return { id: result.document_id, chunks: result.chunk_count, reEmbedded: true };
  }

  return withKeys([`${agentId}:name:${d.filename}`, `${agentId}:sha:${d.sha256}`], async () => {
    const id = await groupedWrite(() => {
      const id = insertDocument(
        {
          agent_id: agentId,
          filename: d.filename,
          type: d.type,
          sha256: d.sha256,
          bytes: d.bytes,
          chunk_size: d.chunk_size,
          chunk_overlap: d.chunk_overlap,
          chunk_strategy: d.chunk_strategy,
          text: d.text,
          embedding_model: model.model,
          source_url: d.source_url,
        },
        chunks,
      );
      activeIngests().add(id);
      return id;
    });
    try {
      await readVectors(chunks, d.filename, next, async (slice, vectors) => {
        writeChunkVectors(id, model.model, slice, vectors);
        await addChunks(target.collection, { agentId, documentId: id }, slice, vectors);
      }, target.dimension);
    } catch (err) {
      // A write that timed out may still reach Chroma: the removal checks again later.
      deleteDocumentRow(agentId, id, "import failed", { lateWrites: true });
      throw err;
    } finally {
      activeIngests().delete(id);
    }
    const committed = await commitReady(agentId, id, d.filename, chunks.length);
    if (!committed) throw new AppError("conflict", `The imported agent or its document "${d.filename}" was deleted while the import ran.`);
    for (const old of committed.retired) await forgetDocument(agentId, old, model);
    if (committed.retired.length > 0) await cleanupNow();
    setDocumentCreatedAt(agentId, id, d.created_at);
    return { id, chunks: chunks.length, reEmbedded: false };
  });
}
