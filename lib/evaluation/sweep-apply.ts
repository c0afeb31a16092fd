import "server-only";
import { findDocument } from "../db/documents";
import { updateSweep } from "../db/sweeps";
import { embedder } from "../embeddings/configured";
import { invalid } from "../core/errors";
import { rechunkDocument } from "../ingest/pipeline";
import { failureMessage } from "../retrieval/retrieve";
import { settingLabel, type SweepView } from "../core/sweep-types";
import { claim, getSweep, messageOf, sameSetting, sweptDocuments } from "./sweep";

/** Re-indexes the agent's documents with a finished row's setting, in the background. */
export function applySweepRow(agentId: number, sweepId: number, row: number): { sweep: SweepView; done: Promise<SweepView> } {
  const sweep = getSweep(agentId, sweepId);
  const target = sweep.rows[row];
  if (!target) throw invalid(`Sweep ${sweepId} has no row ${row}.`);
  if (target.status !== "done") throw invalid(`The row ${settingLabel(target)} has no figures to apply yet.`);
  if (target.embedding_model) {
    throw invalid(
      `The row ${settingLabel(target)} was measured with another embedding model than the app's (${embedder().model}). ` +
        "To switch models, change EMBEDDING_PROVIDER (and OPENAI_EMBEDDING_MODEL), restart, and run npm run reindex; then apply the chunk setting.",
    );
  }
  const docs = sweptDocuments(agentId, embedder().model);
  const held = claim(agentId);
  updateSweep(sweepId, { apply: { row, status: "running", done: 0, total: docs.length, error: null } });
  const done = (async () => {
    const failures: string[] = [];
    for (const [i, d] of docs.entries()) {
      const setting = { chunk_size: target.chunk_size, chunk_overlap: target.chunk_overlap, chunk_strategy: target.chunk_strategy };
      if (!sameSetting(setting, { chunk_size: d.chunk_size, chunk_overlap: d.chunk_overlap, chunk_strategy: d.chunk_strategy })) {
        try {
          const r = await rechunkDocument(agentId, d.id, {
            chunkSize: setting.chunk_size,
            chunkOverlap: setting.chunk_overlap,
            chunkStrategy: setting.chunk_strategy,
          });
          if (r.status !== "ready") failures.push(`${d.filename}: ${r.message}`);
        } catch (err) {
          // A document deleted meanwhile needs nothing; the others are told in the app's words.
          if (findDocument(agentId, d.id)) {
            console.error(`[kb-inspector] sweep ${sweepId}: re-indexing ${d.filename} failed:`, messageOf(err));
            failures.push(`${d.filename}: ${failureMessage(err, "re-index")}`);
          }
        }
      }
      updateSweep(sweepId, { apply: { row, status: "running", done: i + 1, total: docs.length, error: null } });
    }
    const error = failures.length
      ? `${failures.length} of ${docs.length} documents were not re-indexed: ${failures.slice(0, 3).join("; ")}`
      : null;
    updateSweep(sweepId, { apply: { row, status: error ? "failed" : "done", done: docs.length, total: docs.length, error } });
    return getSweep(agentId, sweepId);
  })().finally(() => held.release());
  return { sweep: getSweep(agentId, sweepId), done };
}
