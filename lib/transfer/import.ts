import "server-only";
import { createHash } from "node:crypto";
import { createAgent, findAgentByName, getAgent, updateAgent, type Agent } from "../db/agents";
import { findPair, insertPairs } from "../db/pairs";
import { insertFinishedRun } from "../db/eval-runs";
import { embedder } from "../embeddings/configured";
import { collectionFor } from "../vector-store/client";
import { removeAgent } from "../ingest/remove";
import { conflict, invalid } from "../core/errors";
import { claim } from "../core/one-at-a-time";
import { agentSchema } from "../validations/agent";
import {
  AGENT_FILE_FORMAT,
  AGENT_FILE_VERSION,
  MAX_LINE_BYTES,
  SECTION_ORDER,
  agentLineSchema,
  documentLineSchema,
  endLineSchema,
  pairLineSchema,
  runLineSchema,
  type AgentLine,
  type PairLine,
  type TransferCounts,
} from "./format";
import { badLine, jsonLines, lineAs, type FileLine } from "./lines";
import { importDocument, type DocumentTarget } from "./import-document";

export interface ImportResult {
  agent: Agent;
  documents: number;
  chunks: number;
  pairs: number;
  runs: number;
  /** Some documents were embedded again by this instance's model (the file's was another, or it had no vectors for them). */
  re_embedded: boolean;
}

/** Pairs written per transaction. */
const PAIR_BATCH = 500;

function readHeader(line: FileLine | undefined): AgentLine {
  if (!line) throw invalid("The agent file is empty.");
  if (line.value.type !== "agent" || line.value.format !== AGENT_FILE_FORMAT) {
    throw badLine(line.number, `this is not an agent file (its first line must be the "agent" line of format "${AGENT_FILE_FORMAT}").`);
  }
  if (line.value.version !== AGENT_FILE_VERSION) {
    throw badLine(
      line.number,
      `the file is of version ${JSON.stringify(line.value.version)}; this app reads version ${AGENT_FILE_VERSION}.`,
    );
  }
  return lineAs(agentLineSchema, line);
}

const describeCounts = (c: TransferCounts) => `${c.documents} documents, ${c.chunks} chunks, ${c.pairs} pairs and ${c.runs} runs`;

/**
 * Creates a new agent from an agent file (lib/transfer/format.ts) read line by line from `body`:
 * its settings, its documents (their vectors as they are when the file's model is this
 * instance's, else embedded again from their text), pairs and finished runs. The header is
 * checked, and the name is free (409 otherwise), before anything is written; at the end the
 * file's checksum and counts are checked. Any failure removes the agent and all it wrote,
 * vectors included, by the app's own removal path.
 */
export async function importAgent(
  body: ReadableStream<Uint8Array> | null,
  opts: { name?: string; maxLineBytes?: number } = {},
): Promise<ImportResult> {
  if (!body) throw invalid("Send the agent file (NDJSON, as GET /api/agents/{id}/export writes it) as the request body.");
  // One at a time: each holds a whole document's text, chunks and vectors in memory as it writes them.
  const running = claim("agent-import", "An agent import", "Imports run one at a time; try again when it finishes.");
  const lines = jsonLines(body, opts.maxLineBytes ?? MAX_LINE_BYTES);
  try {
    const first = (await lines.next()).value || undefined;
    const header = readHeader(first);
    const name = agentSchema.shape.name.parse(opts.name ?? header.agent.name);
    if (findAgentByName(name)) {
      throw conflict(
        `An agent named "${name}" already exists on this instance: pass ?name= with a new name to import the file under that name.`,
      );
    }
    running.rename(`The import of agent "${name}"`);
    const model = embedder();
    await collectionFor(model); // also learns the dimension of a model that reports it on first use
    const target: DocumentTarget = {
      agentId: 0,
      model,
      sameModel: header.embedding_model === model.model && header.dimension === model.dimension,
      dimension: header.dimension,
    };
    const agent = createAgent({ name, tools: header.agent.tools });
    target.agentId = agent.id;
    try {
      const hash = createHash("sha256").update(first!.raw);
      return await importBody(agent, header, target, lines, hash);
    } catch (err) {
      await discard(agent.id);
      throw err;
    }
  } finally {
    await lines.return(undefined);
    running.release();
  }
}

/** Removes a half-imported agent; a failure here is logged, never put in place of the import's own error. */
async function discard(agentId: number): Promise<void> {
  try {
    await removeAgent(agentId);
  } catch (err) {
    console.error(`[kb-inspector] removing the half-imported agent ${agentId} failed:`, err);
  }
}

async function importBody(
  agent: Agent,
  header: AgentLine,
  target: DocumentTarget,
  lines: AsyncGenerator<FileLine>,
  hash: ReturnType<typeof createHash>,
): Promise<ImportResult> {
  const a = header.agent;
  updateAgent(agent.id, {
    retrieval_mode: a.retrieval_mode,
    log_questions: a.log_questions,
    cut: a.max_distance === null ? null : { maxDistance: a.max_distance, model: a.max_distance_model ?? header.embedding_model },
  });
  const read: TransferCounts = { documents: 0, chunks: 0, pairs: 0, runs: 0 };
  const written = { chunks: 0, reEmbedded: false };
  const documentIds = new Map<string, number>();
  const pairKeys = new Set<string>();
  let batch: PairLine[] = [];
  let phase = 0;
  let last = 1;

  const nextLine = async (): Promise<FileLine | undefined> => {
    const { value, done } = await lines.next();
    if (done) return undefined;
    last = value.number;
    return value;
  };
  const cutShort = () => invalid(`The agent file ends at line ${last} without its end line: it was cut short.`);
  const nextVectors = async (filename: string) => {
    const line = await nextLine();
    if (!line) throw cutShort();
    if (line.value.type !== "vectors") throw badLine(line.number, `a ${line.value.type} line where the vectors of "${filename}" go on.`);
    hash.update(line.raw);
    return line;
  };
  const flushPairs = () => {
    // Consecutive pairs of one source and status go in one transaction.
    for (let i = 0; i < batch.length;) {
      const { source, status } = batch[i];
      let j = i;
      while (j < batch.length && batch[j].source === source && batch[j].status === status) j++;
      insertPairs(
        agent.id,
        batch.slice(i, j).map((p) => ({ query: p.query, expected_filename: p.expected_filename, note: p.note })),
        {
          source,
          status,
        },
      );
      i = j;
    }
    batch = [];
  };

  for (;;) {
    const line = await nextLine();
    if (!line) throw cutShort();
    const type = line.value.type;
    const at = SECTION_ORDER.indexOf(type as (typeof SECTION_ORDER)[number]);
    if (type === "vectors") throw badLine(line.number, "vectors that follow no document that carries vectors.");
    if (at < 0) throw badLine(line.number, `unknown line type "${type}".`);
    if (at < phase) throw badLine(line.number, `a ${type} line after the ${SECTION_ORDER[phase]} lines: the lines are out of order.`);
    phase = at;
    if (type !== "pair" && batch.length > 0) flushPairs();

    if (type === "document") {
      hash.update(line.raw);
      const doc = lineAs(documentLineSchema, line);
      if (documentIds.has(doc.document.filename)) throw badLine(line.number, `a second document named "${doc.document.filename}".`);
      const done = await importDocument(target, doc, line.number, nextVectors);
      documentIds.set(doc.document.filename, done.id);
      read.documents++;
      // A curated document's indexed chunks: those on, of a document on (what the export counts).
      const curated = doc.curation;
      read.chunks += curated ? (curated.enabled ? curated.chunks.filter((c) => c.enabled).length : 0) : doc.chunks.length;
      written.chunks += done.chunks;
      written.reEmbedded ||= done.reEmbedded;
    } else if (type === "pair") {
      hash.update(line.raw);
      const pair = lineAs(pairLineSchema, line);
      const key = `${pair.query}\u0000${pair.expected_filename}`;
      if (pairKeys.has(key)) throw badLine(line.number, `the pair "${pair.query}" -> "${pair.expected_filename}" is in the file twice.`);
      pairKeys.add(key);
      batch.push(pair);
      if (batch.length >= PAIR_BATCH) flushPairs();
      read.pairs++;
    } else if (type === "run") {
      hash.update(line.raw);
      importRun(agent.id, line, documentIds);
      read.runs++;
    } else {
      const end = lineAs(endLineSchema, line);
      const digest = hash.digest("hex");
      if (end.sha256 !== digest) {
        throw badLine(
          line.number,
          `the end line's SHA-256 does not match lines 1-${line.number - 1}: the file was altered or damaged after it was exported.`,
        );
      }
      if (JSON.stringify(end.counts) !== JSON.stringify(read)) {
        throw badLine(line.number, `the end line counts ${describeCounts(end.counts)}, the file holds ${describeCounts(read)}.`);
      }
      const after = await nextLine();
      if (after) throw badLine(after.number, "a line after the end line.");
      return {
        agent: getAgent(agent.id),
        documents: read.documents,
        chunks: written.chunks,
        pairs: read.pairs,
        runs: read.runs,
        re_embedded: written.reEmbedded,
      };
    }
  }
}

/** A finished run as history: its results name documents by filename, resolved to this agent's documents and pairs. */
function importRun(agentId: number, line: FileLine, documentIds: Map<string, number>): void {
  const { results, ...run } = lineAs(runLineSchema, line);
  const seen = new Set<string>();
  for (const r of results) {
    const key = `${r.query}\u0000${r.expected}`;
    if (seen.has(key)) throw badLine(line.number, `the run has the pair "${r.query}" -> "${r.expected}" twice.`);
    seen.add(key);
  }
  insertFinishedRun(
    agentId,
    run,
    results.map((r) => ({
      ...r,
      pair_id: findPair(agentId, r.query, r.expected)?.id ?? null,
      document_id: r.missing || !r.answerable ? null : (documentIds.get(r.expected) ?? null),
    })),
  );
}
