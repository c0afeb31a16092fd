import "server-only";
import { invalid } from "../core/errors";
import type { Filter } from "../core/filter";
import { coveredCalls, retrievedByName, retrievedChunks, servedForCoverage, type CoveredDocument, type Retrieved } from "../db/coverage";
import { documentVectorRuns } from "../db/chunk-vectors";
import { findDocument } from "../db/documents";
import { listedMatching } from "../db/metadata";
import { groupText, representativePage } from "../db/questions";
import { embedder } from "../embeddings/configured";
import { groupQuestions } from "./group";

/**
 * Coverage: which of the agent's documents and chunks its own calls retrieve, how often and at
 * which ranks, since a point in time; and the documents never retrieved since then, each with the
 * logged question nearest to it (the question it would be most likely to answer).
 */

export const DEFAULT_SINCE = "30d";
const RELATIVE = /^(\d{1,4})([dh])$/;

/**
 * `since` as given: `30d`, `12h`, `all`, or an ISO date or time; relative to `now`. Null: ever.
 * Anything else is refused, saying what is accepted.
 */
export function parseSince(raw: string | null, now: Date = new Date()): string | null {
  const given = (raw ?? DEFAULT_SINCE).trim();
  if (given === "all") return null;
  const relative = RELATIVE.exec(given);
  if (relative) {
    const hours = Number(relative[1]) * (relative[2] === "d" ? 24 : 1);
    return new Date(now.getTime() - hours * 3_600_000).toISOString();
  }
  const at = /^\d{4}-\d{2}-\d{2}/.test(given) ? new Date(given) : null;
  if (!at || Number.isNaN(at.getTime())) {
    throw invalid(`since must be "all", a number of days or hours as "30d" or "12h", or an ISO date as "2026-11-01"; got "${given}".`);
  }
  return at.toISOString();
}

const NONE: Retrieved = { retrieved: 0, ranks: { "1": 0, "2": 0, "3": 0, "4-5": 0, "6+": 0 }, first_at: "", last_at: "" };

export type DocumentCoverage = CoveredDocument &
  Omit<Retrieved, "first_at" | "last_at"> & {
    /** The first and last call that retrieved it; null when none did. */
    first_at: string | null;
    last_at: string | null;
  };

export interface Coverage {
  since: string | null;
  /** The agent's own calls that retrieved anything since then: what the counts are out of. */
  calls: number;
  documents: DocumentCoverage[];
  /** Served documents no call retrieved since then. */
  never_retrieved: number;
}

function coverageOf(d: CoveredDocument, r: Retrieved | undefined): DocumentCoverage {
  const t = r ?? NONE;
  return {
    id: d.id,
    filename: d.filename,
    chunk_count: d.chunk_count,
    enabled: d.enabled,
    metadata: d.metadata,
    retrieved: t.retrieved,
    ranks: t.ranks,
    first_at: r ? t.first_at : null,
    last_at: r ? t.last_at : null,
  };
}

/** Each served document (those a filter matches, when given) with what the agent's calls retrieved of it since `since`. */
export function agentCoverage(agentId: number, since: string | null, filter?: Filter): Coverage {
  const matched = filter ? listedMatching(agentId, filter) : null;
  const byName = retrievedByName(agentId, since);
  const documents = servedForCoverage(agentId)
    .filter((d) => !matched || matched.has(d.id))
    .map((d) => coverageOf(d, byName.get(d.filename)));
  return { since, calls: coveredCalls(agentId, since), documents, never_retrieved: documents.filter((d) => d.retrieved === 0).length };
}

/** One document's chunks, each with what the agent's calls retrieved of it since `since` (this version's chunks only). */
export function chunkCoverage(agentId: number, documentId: number, since: string | null) {
  const doc = findDocument(agentId, documentId);
  if (!doc || doc.status !== "ready") return undefined;
  const byChunk = retrievedChunks(agentId, documentId, since);
  const chunks = Array.from({ length: doc.chunk_count }, (_, i) => {
    const r = byChunk.get(i);
    return { chunk_index: i, ...(r ?? NONE), first_at: r ? r.first_at : null, last_at: r ? r.last_at : null };
  });
  return { document_id: doc.id, filename: doc.filename, since, chunks };
}

export interface NearestQuestion {
  group_id: number;
  text: string;
  /** Cosine distance between the question and the document's nearest chunk (lower is nearer). */
  distance: number;
}

/** The agent's question groups with a vector of `model`: their ids and unit vectors. */
function questionVectors(agentId: number, model: string): { id: number; vector: Float32Array }[] {
  const out: { id: number; vector: Float32Array }[] = [];
  for (let after = 0; ;) {
    const page = representativePage(agentId, model, after, 500);
    if (page.length === 0) return out;
    for (const r of page) {
      out.push({
        id: r.group_id,
        vector: new Float32Array(r.vector.buffer.slice(r.vector.byteOffset, r.vector.byteOffset + r.vector.byteLength)),
      });
    }
    after = page[page.length - 1].group_id;
  }
}

/** The question nearest to any chunk of a document, by cosine distance. */
function nearestQuestion(documentId: number, model: string, questions: { id: number; vector: Float32Array }[]) {
  let best: { id: number; distance: number } | null = null;
  for (const run of documentVectorRuns(documentId, model)) {
    const dim = run.dimension;
    for (let c = 0; c < run.count; c++) {
      const chunk = run.vectors.subarray(c * dim, (c + 1) * dim);
      let norm = 0;
      for (let i = 0; i < dim; i++) norm += chunk[i] * chunk[i];
      if (norm === 0) continue;
      for (const q of questions) {
        if (q.vector.length !== dim) continue;
        let dot = 0;
        for (let i = 0; i < dim; i++) dot += chunk[i] * q.vector[i];
        const distance = 1 - dot / Math.sqrt(norm);
        // Ties: the older question.
        if (!best || distance < best.distance || (distance === best.distance && q.id < best.id)) best = { id: q.id, distance };
      }
    }
  }
  return best;
}

/**
 * The served documents no call of the agent retrieved since `since`, oldest upload first, at most
 * `limit` from `offset`, each with the logged question nearest to it (null when the agent has
 * no logged question embedded with the model the app uses now).
 */
export async function neverRetrieved(agentId: number, since: string | null, limit: number, offset = 0, filter?: Filter) {
  // Questions logged since the last grouping are grouped (and embedded) first, as the Questions tab does.
  await groupQuestions(agentId);
  const { documents, calls } = agentCoverage(agentId, since, filter);
  const never = documents.filter((d) => d.retrieved === 0).sort((a, b) => a.id - b.id);
  const model = embedder().model;
  const questions = questionVectors(agentId, model);
  const page = never.slice(offset, offset + limit).map((d) => {
    const near = questions.length ? nearestQuestion(d.id, model, questions) : null;
    const text = near ? groupText(agentId, near.id) : undefined;
    const nearest: NearestQuestion | null =
      near && text !== undefined ? { group_id: near.id, text, distance: Math.round(near.distance * 10_000) / 10_000 } : null;
    return { id: d.id, filename: d.filename, chunk_count: d.chunk_count, enabled: d.enabled, nearest_question: nearest };
  });
  return { since, calls, total: never.length, offset, documents: page };
}
