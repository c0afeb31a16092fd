import "server-only";
import { createHash } from "node:crypto";
import { getAgent } from "../db/agents";
import { findDocument, readyDocumentIds } from "../db/documents";
import { documentChunks } from "../db/chunks";
import { isCurated } from "../ingest/carry";
import { curationOf } from "../ingest/version-state";
import { readVectorRuns, type VectorRun } from "../db/chunk-vectors";
import { listPairs } from "../db/pairs";
import { listRuns, runResults } from "../db/eval-runs";
import { embedder } from "../embeddings/configured";
import { slug } from "../format/slug";
import {
  AGENT_FILE_FORMAT,
  AGENT_FILE_VERSION,
  VECTORS_PER_LINE,
  type AgentLine,
  type DocumentLine,
  type PairLine,
  type RunLine,
  type TransferCounts,
  type VectorsLine,
} from "./format";

/** The download name of an agent's file. */
export const agentFileName = (agent: { id: number; name: string }) => `${slug(agent)}.kb-agent.ndjson`;

/** A document's stored runs when they cover its chunks 0..n-1 in order, else null (its copy is incomplete). */
function coveringRuns(runs: VectorRun[], chunkCount: number): VectorRun[] | null {
  let next = 0;
  for (const r of runs) {
    if (r.first_chunk !== next) return null;
    next += r.count;
  }
  return next === chunkCount ? runs : null;
}

function* vectorLines(runs: VectorRun[]): Generator<VectorsLine> {
  for (const run of runs) {
    for (let i = 0; i < run.count; i += VECTORS_PER_LINE) {
      const n = Math.min(VECTORS_PER_LINE, run.count - i);
      const part = run.vectors.subarray(i * run.dimension, (i + n) * run.dimension);
      const data = Buffer.from(part.buffer, part.byteOffset, part.byteLength).toString("base64");
      yield { type: "vectors", first_chunk: run.first_chunk + i, count: n, dimension: run.dimension, data };
    }
  }
}

/**
 * The agent's file, line by line (each with its newline): read one document at a time, so
 * memory stays that of the largest document whatever the agent's size. Documents are the ready
 * ones at the start, in id order (one deleted meanwhile is left out); vectors are the
 * chunk_vectors copy as stored, so an import into the same model reproduces every distance.
 */
export function exportAgentLines(agentId: number): AsyncGenerator<string> {
  const agent = getAgent(agentId); // a 404 before the response starts
  return lines(agent.id);
}

async function* lines(agentId: number): AsyncGenerator<string> {
  const agent = getAgent(agentId);
  const model = embedder();
  // A model on a compatible server may learn its dimension from a first call (as openCollection does).
  if ("init" in model && typeof model.init === "function") await model.init();
  const docs = readyDocumentIds(agentId);
  const runs = listRuns(agentId).filter((r) => r.status !== "running");
  const pairCount = listPairs(agentId).length;
  const hash = createHash("sha256");
  const counts: TransferCounts = { documents: 0, chunks: 0, pairs: 0, runs: 0 };
  const line = (value: object) => {
    const text = `${JSON.stringify(value)}\n`;
    hash.update(text);
    return text;
  };

  const header: AgentLine = {
    type: "agent",
    format: AGENT_FILE_FORMAT,
    version: AGENT_FILE_VERSION,
    exported_at: new Date().toISOString(),
    agent: {
      name: agent.name,
      tools: agent.tools,
      retrieval_mode: agent.retrieval_mode,
      max_distance: agent.max_distance,
      max_distance_model: agent.max_distance_model,
      log_questions: agent.log_questions,
      created_at: agent.created_at,
    },
    embedding_model: model.model,
    dimension: model.dimension,
    counts: { documents: docs.length, chunks: docs.reduce((n, d) => n + d.chunk_count, 0), pairs: pairCount, runs: runs.length },
  };
  yield line(header);

  for (const { id } of docs) {
    const doc = findDocument(agentId, id);
    if (!doc || doc.status !== "ready") continue;
    const chunks = documentChunks(id);
    // A curated document goes with all its chunks and their curation, embedded again by the importer.
    const state = curationOf(doc);
    const curated = isCurated(state);
    // Vectors of another model than the file's would be embedded again by any importer.
    const runs =
      !curated && doc.embedding_model === model.model ? coveringRuns(readVectorRuns([id], doc.embedding_model), chunks.length) : null;
    const out: DocumentLine = {
      type: "document",
      document: {
        filename: doc.filename,
        type: doc.type,
        sha256: doc.sha256,
        bytes: doc.bytes,
        chunk_size: doc.chunk_size,
        chunk_overlap: doc.chunk_overlap,
        chunk_strategy: doc.chunk_strategy,
        embedding_model: doc.embedding_model,
        source_url: doc.source_url,
        created_at: doc.created_at,
        text: doc.text,
        metadata: doc.metadata,
        ...(doc.ocr ? { ocr: doc.ocr } : {}),
        ...(doc.page_starts ? { page_starts: doc.page_starts } : {}),
      },
      chunks: curated
        ? []
        : chunks.map((c) => ({ index: c.chunk_index, start: c.start, end: c.end, ...(c.context ? { context: c.context } : {}) })),
      // Without a full copy the importer embeds the text again, as it does for another model.
      vectors: runs !== null,
      ...(curated
        ? {
            curation: {
              enabled: state.enabled,
              removed: state.removed,
              chunks: state.chunks.map((c) => ({
                start: c.start,
                end: c.end,
                text: c.text,
                questions: c.questions,
                original: c.original,
                enabled: c.enabled,
                ...(c.context ? { context: c.context } : {}),
              })),
            },
          }
        : {}),
    };
    yield line(out);
    for (const v of runs ? vectorLines(runs) : []) yield line(v);
    counts.documents++;
    counts.chunks += chunks.length;
  }

  for (const p of listPairs(agentId)) {
    const out: PairLine = {
      type: "pair",
      query: p.query,
      expected_filename: p.expected_filename,
      note: p.note,
      source: p.source,
      status: p.status,
      created_at: p.created_at,
    };
    yield line(out);
    counts.pairs++;
  }

  for (const run of runs) {
    const out: RunLine = {
      type: "run",
      k: run.k,
      status: run.status as RunLine["status"],
      error: run.error,
      done_pairs: run.done_pairs,
      n_pairs: run.n_pairs,
      embedding_model: run.embedding_model,
      query_weighting: run.query_weighting,
      document_count: run.document_count,
      chunk_count: run.chunk_count,
      chunk_settings: run.chunk_settings,
      max_distance: run.max_distance,
      retrieval_mode: run.retrieval_mode,
      pair_source: run.pair_source,
      reranker: run.reranker,
      reranker_version: run.reranker_version,
      recall_at_k: run.recall_at_k,
      mrr: run.mrr,
      created_at: run.created_at,
      finished_at: run.finished_at,
      results: runResults(run.id).map((r) => ({
        query: r.query,
        expected: r.expected,
        rank: r.rank,
        best_distance: r.best_distance,
        top_distance: r.top_distance,
        missing: r.missing,
        beyond_cut: r.beyond_cut,
        answerable: r.answerable,
      })),
    };
    yield line(out);
    counts.runs++;
  }

  yield `${JSON.stringify({ type: "end", counts, sha256: hash.digest("hex") })}\n`;
}

/** The lines as a byte stream that reads the next line only when the client takes the last. */
export function linesStream(lines: AsyncGenerator<string>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let cancelled = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let step: IteratorResult<string>;
      try {
        step = await lines.next();
      } catch (err) {
        // The file stops without its end line, which an import refuses as cut short.
        if (!cancelled) {
          console.error("[kb-inspector] agent export failed:", err);
          controller.error(err);
        }
        return;
      }
      // The client went away while the line was read.
      if (cancelled) return;
      if (step.done) controller.close();
      else controller.enqueue(encoder.encode(step.value));
    },
    async cancel() {
      cancelled = true;
      await lines.return(undefined);
    },
  });
}
