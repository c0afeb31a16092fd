import "server-only";
import type { Embedder } from "../embeddings";
import { AppError, vectorStoreUnavailable } from "../core/errors";
import { setDocumentCreatedAt } from "../db/documents";
import { writeChunkVectors } from "../db/chunk-vectors";
import { indexExtractedText, type ChunkWriter } from "../ingest/pipeline";
import { addNotedChunks } from "../ingest/write-chunks";
import { versionRows } from "../ingest/carry";
import type { Chunk } from "../core/chunking";
import { MAX_CHUNKS_PER_DOCUMENT } from "../db/keyword-index";
import { sanitizeDocumentPath } from "../validations/filename";
import { chunkSettingsSchema } from "../validations/upload";
import { env } from "../env.mjs";
import { ACCEPTED_EXTENSIONS, typeFromFilename } from "../extract/detect";
import { tooMuchText } from "../extract/limits";
import type { DocumentType } from "../extract/errors";
import { validPageStarts } from "../core/pages";
import { chunkRangeProblem } from "./chunk-ranges";
import { vectorsLineSchema, type DocumentLine, type VectorsLine } from "./format";
import { badLine, lineAs, type FileLine } from "./lines";

export interface DocumentTarget {
  agentId: number;
  model: Embedder;
  /** The file's vectors are of this instance's model and dimension. */
  sameModel: boolean;
  dimension: number;
}

/** The next line, which must be the named document's next vectors line. */
export type NextVectors = (filename: string) => Promise<FileLine>;

// The document types uploads detect (txt, md, html, pdf, docx), from the upload's own table.
const DOCUMENT_TYPES = new Set(ACCEPTED_EXTENSIONS.map((e) => typeFromFilename(e)));

/** The document line's name, type, text and chunk settings, checked as an upload of the same text is. */
function checkDocument(line: DocumentLine, n: number): void {
  const { text, filename, type } = line.document;
  if (sanitizeDocumentPath(filename) !== filename) throw badLine(n, `the filename "${filename}" is not one this app stores.`);
  if (!DOCUMENT_TYPES.has(type as DocumentType)) throw badLine(n, `"${filename}" is of type "${type}", not one this app reads.`);
  const maxChars = env().MAX_TEXT_CHARS;
  if (text.length > maxChars) throw badLine(n, tooMuchText(filename, type as DocumentType, maxChars).message);
  if (text.trim() === "") throw badLine(n, `"${filename}" contains no text.`);
  const settings = chunkSettingsSchema.safeParse(line.document);
  if (!settings.success) throw badLine(n, `"${filename}": ${settings.error.issues[0].message}`);
  const starts = line.document.page_starts;
  if (starts && !validPageStarts(starts, text.length))
    throw badLine(n, `the page starts of "${filename}" do not fit its text: they start at 0, never go back, and end within the text.`);
}

/**
 * The document line's chunks with their text, checked as an upload of the same text is: its
 * name as uploads clean it, its type, its text within MAX_TEXT_CHARS, its chunk settings as the
 * upload form takes them, and chunks the chunker could have made of it at those settings.
 */
function chunksOf(line: DocumentLine, n: number): Chunk[] {
  checkDocument(line, n);
  const { text, chunk_size, chunk_overlap, chunk_strategy, filename } = line.document;
  if (line.chunks.length >= MAX_CHUNKS_PER_DOCUMENT) throw badLine(n, `"${filename}" has more chunks than one document may hold.`);
  const misplaced = line.chunks.findIndex((c, i) => c.index !== i);
  if (misplaced >= 0)
    throw badLine(
      n,
      `chunk ${misplaced} of "${filename}" has the index ${line.chunks[misplaced].index}; chunks are listed in order from 0.`,
    );
  const problem = chunkRangeProblem(text, line.chunks, chunk_size, chunk_overlap, chunk_strategy);
  if (problem) throw badLine(n, `the chunks of "${filename}" are not ones this app makes: ${problem}`);
  return line.chunks.map((c, i) => ({
    index: i,
    start: c.start,
    end: c.end,
    text: text.slice(c.start, c.end),
    ...(c.context ? { context: c.context } : {}),
  }));
}

/**
 * A curated document: its text checked as any document's, then written with its chunks as the
 * curation lists them (none of them need be the chunker's), every chunk embedded by this instance.
 */
async function importCurated(agentId: number, line: DocumentLine, n: number): Promise<{ id: number; chunks: number; reEmbedded: boolean }> {
  const d = line.document;
  checkDocument(line, n);
  if (line.chunks.length > 0 || line.vectors)
    throw badLine(n, `"${d.filename}" has a curation, so it lists no chunks and no vectors of its own.`);
  const curation = line.curation!;
  const beyond = curation.chunks.findIndex((c) => c.start > c.end || c.end > d.text.length);
  if (beyond >= 0) throw badLine(n, `chunk ${beyond} of the curation of "${d.filename}" lies outside its text.`);
  const rows = versionRows({ ...curation, chunks: curation.chunks.map((c) => ({ ...c, id: null })) });
  const settings = { chunkSize: d.chunk_size, chunkOverlap: d.chunk_overlap, chunkStrategy: d.chunk_strategy };
  const result = await indexExtractedText(agentId, d, settings, undefined, {
    chunks: rows.chunks,
    version: { enabled: curation.enabled, off: rows.off, removed: curation.removed },
  });
  if (result.status !== "ready" || result.document_id === null) {
    if (result.code === "vector_store_unavailable") throw vectorStoreUnavailable();
    if (result.code === "embedding_failed") throw new AppError("embedding_failed", `"${d.filename}" (line ${n}): ${result.message}`);
    if (result.code === "deleted")
      throw new AppError("conflict", `The imported agent or its document "${d.filename}" was deleted while the import ran.`);
    throw badLine(n, `"${d.filename}" could not be indexed: ${result.message}`);
  }
  setDocumentCreatedAt(agentId, result.document_id, d.created_at);
  return { id: result.document_id, chunks: result.chunk_count, reEmbedded: true };
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
async function readVectors(
  chunks: Chunk[],
  filename: string,
  next: NextVectors,
  use?: (slice: Chunk[], vectors: number[][]) => Promise<void>,
  dimension?: number,
) {
  for (let covered = 0; covered < chunks.length;) {
    const line = await next(filename);
    const v = lineAs(vectorsLineSchema, line);
    if (v.first_chunk !== covered || covered + v.count > chunks.length) {
      throw badLine(
        line.number,
        `vectors for chunks ${v.first_chunk}-${v.first_chunk + v.count - 1} of "${filename}", expected from chunk ${covered} of ${chunks.length}.`,
      );
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
  if (line.curation) return importCurated(agentId, line, n);
  const chunks = chunksOf(line, n);
  const settings = { chunkSize: d.chunk_size, chunkOverlap: d.chunk_overlap, chunkStrategy: d.chunk_strategy };
  const sameModel = Boolean(line.vectors && target.sameModel && d.embedding_model === model.model);
  // Vectors of another model are read past; the configured model embeds the text instead.
  if (line.vectors && !sameModel) await readVectors(chunks, d.filename, next);
  // The file's vectors as they are, slice by slice as they are read: the exact copy first, then Chroma, as ingest writes them.
  const write: ChunkWriter = (to, doc, docChunks) =>
    readVectors(
      docChunks,
      d.filename,
      next,
      async (slice, vectors) => {
        writeChunkVectors(doc.documentId, to.model.model, slice, vectors);
        await addNotedChunks(to.collection, doc, slice, vectors);
      },
      target.dimension,
    );
  const given = sameModel ? { chunks, write } : undefined;
  const result = await indexExtractedText(agentId, d, settings, undefined, given);
  if (result.status !== "ready" || result.document_id === null) {
    if (result.code === "vector_store_unavailable") throw vectorStoreUnavailable();
    if (result.code === "embedding_failed") throw new AppError("embedding_failed", `"${d.filename}" (line ${n}): ${result.message}`);
    // A vectors line that did not read (its own line named in the message), or one over the line cap.
    if (result.code === "invalid_request" || result.code === "request_too_large") throw new AppError(result.code, result.message);
    if (result.code === "deleted")
      throw new AppError("conflict", `The imported agent or its document "${d.filename}" was deleted while the import ran.`);
    throw badLine(n, `"${d.filename}" could not be indexed: ${result.message}`);
  }
  setDocumentCreatedAt(agentId, result.document_id, d.created_at);
  return { id: result.document_id, chunks: result.chunk_count, reEmbedded: !sameModel };
}
