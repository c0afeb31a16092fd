import "server-only";
import { getDocument, listDocuments, type DocumentRow } from "../../db/documents";
import { documentChunks, readyAmong } from "../../db/chunks";
import { dismissedQuestions, insertPairs, listPairs } from "../../db/pairs";
import { AppError } from "../../core/errors";
import { claim } from "../../core/one-at-a-time";
import { questionKey } from "../../core/normalize";
import { MAX_GENERATE_DOCUMENTS, tooManyDocuments, type GenerateInput } from "../../validations/generate";
import { questionWriter } from "./chat";
import { offlineQuestions } from "./offline";

/**
 * Proposed questions for an agent's documents: written by the chat model when one is set, else
 * read from each document's structure (./offline.ts). They are stored as pairs of source
 * `generated` and status `proposed`: none counts in a run until a person accepts it.
 */

export interface GenerateReport {
  /** "offline", or the chat model that wrote the questions. */
  generator: string;
  proposed: number;
  /** Questions that exist already as a pair of the agent with the same document, or that a person rejected or reworded. */
  skipped: number;
  per_document: { document_id: number; filename: string; proposed: number }[];
}

/** Chat calls in flight at once: a call over many documents finishes in a few rounds without flooding the endpoint. */
const CHAT_CONCURRENCY = 4;

const pairKey = (query: string, filename: string) => `${questionKey(query)}\u0000${filename}`;

/** The agent's ready documents named (or all of them); 422 unknown_document for any other id. */
function chosenDocuments(agentId: number, chosen: GenerateInput["documents"]): DocumentRow[] {
  const ready = listDocuments(agentId)
    .filter((d) => d.status === "ready")
    .sort((a, b) => a.id - b.id);
  if (chosen === "all") {
    if (ready.length > MAX_GENERATE_DOCUMENTS) throw new AppError("invalid_request", tooManyDocuments(ready.length));
    return ready;
  }
  const byId = new Map(ready.map((d) => [d.id, d]));
  const unknown = chosen.filter((id) => !byId.has(id));
  if (unknown.length) {
    throw new AppError(
      "unknown_document",
      `No indexed document with id ${unknown.join(", ")} in this agent: choose among its ready documents.`,
    );
  }
  return chosen.map((id) => byId.get(id)!);
}

/** Runs `work` over `items` with at most `limit` at a time, results in order; the first failure rejects. */
async function inTurn<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        results[i] = await work(items[i]);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * Generates up to `per_document` questions for each chosen document and stores the new ones as
 * proposals, all in one transaction after every document is done: a failure stores none.
 * 409 while another generation for the agent runs (both would propose the same questions).
 */
export async function generatePairs(agentId: number, input: GenerateInput): Promise<GenerateReport> {
  const docs = chosenDocuments(agentId, input.documents);
  const slot = claim(`generate:${agentId}`, "A generation of questions for this agent", "Wait for it to finish, then generate again.");
  try {
    const writer = questionWriter();
    const n = input.per_document;
    const written = writer
      ? await inTurn(docs, CHAT_CONCURRENCY, (d) =>
          writer.write(
            d.filename,
            documentChunks(d.id).map((c) => c.text),
            n,
          ),
        )
      : docs.map((d) => offlineQuestions(getDocument(agentId, d.id).text, n).map((q) => q.query));
    // A document removed while the questions were written gets none.
    const still = readyAmong(
      agentId,
      docs.map((d) => d.id),
    );
    // What exists already, and what a person rejected or reworded before, is not proposed again.
    const seen = new Set([...listPairs(agentId).map((p) => pairKey(p.query, p.expected_filename)), ...dismissedQuestions(agentId)]);
    const rows: { query: string; expected_filename: string; note: string | null }[] = [];
    let skipped = 0;
    const perDocument = docs.map((d, i) => {
      let proposed = 0;
      for (const query of still.has(d.id) ? written[i] : []) {
        const key = pairKey(query, d.filename);
        if (seen.has(key)) {
          skipped++;
          continue;
        }
        seen.add(key);
        rows.push({ query, expected_filename: d.filename, note: null });
        proposed++;
      }
      return { document_id: d.id, filename: d.filename, proposed };
    });
    insertPairs(agentId, rows, { source: "generated", status: "proposed" });
    return { generator: writer?.model ?? "offline", proposed: rows.length, skipped, per_document: perDocument };
  } finally {
    slot.release();
  }
}
