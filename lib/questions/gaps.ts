import "server-only";
import { getAgent } from "../db/agents";
import { gapCandidates, readyDocumentDates } from "../db/questions";
import { embedder } from "../embeddings/configured";
import { csvLine } from "../evaluation/pair-files";
import { noMatchCut } from "../retrieval/cut";
import { retrieve } from "../retrieval/retrieve";
import type { RetrievalTrace } from "../core/trace";
import { groupQuestions } from "./group";
import { questionViews, type QuestionView } from "./list";

/** At most this many gaps are listed and checked against the documents now. */
export const MAX_GAPS = 200;

export interface GapView extends QuestionView {
  /** Why it is on the list: marked by a person, refused by the cut each time, or never nearer than the limit. */
  why: "marked" | "refused" | "far";
  /** The document that answers it now (ranks first within the limit and came after the question), or null. */
  answered_by: { document_id: number; filename: string; score: number } | null;
  /**
   * Without a limit (no cut, no `beyond`) nothing can be judged answered: a document added after
   * the question that now ranks first nearer than anything it got then is only "nearer now".
   */
  nearer_now: { document_id: number; filename: string; score: number } | null;
}

export interface GapList {
  gaps: GapView[];
  /** The distance past which an asked question counts as unanswered: the `beyond` asked for, or the agent's cut. */
  limit: number | null;
}

/**
 * The support lead's list of articles to write: questions marked `gap`, plus open ones the no-match
 * cut refused every time or whose nearest chunk never came within `beyond` (default: the cut), the
 * most asked first, each with the closest article it got. Each is asked again now: when a document
 * added after it ranks first within the limit, the gap shows as answered by that document (with no
 * limit at all, only as nearer now: nothing says how near answers).
 */
export async function listGaps(agentId: number, beyond: number | null = null): Promise<GapList> {
  const agent = getAgent(agentId);
  await groupQuestions(agentId);
  const cut = noMatchCut(agent, embedder().model);
  const limit = beyond ?? cut;
  const rows = gapCandidates(agentId, limit, MAX_GAPS);
  const views = questionViews(rows);
  const trace: RetrievalTrace[] = [];
  await retrieve(
    agentId,
    views.map((v) => v.text),
    { topK: 1, trace },
  );
  const firsts = trace.map((t) => t.results[0] ?? null);
  const dates = readyDocumentDates(
    agentId,
    firsts.flatMap((f) => (f ? [f.document_id] : [])),
  );
  const gaps = views.map((v, i): GapView => {
    const row = rows[i];
    const first = firsts[i];
    const since = row.status === "gap" && row.triaged_at ? row.triaged_at : row.first_asked;
    const added = first ? dates.get(first.document_id) : undefined;
    const newer =
      first && added && added.created_at >= since ? { document_id: first.document_id, filename: added.filename, score: first.score } : null;
    const answered = newer && limit !== null && newer.score <= limit ? newer : null;
    const nearer = newer && limit === null && (row.best_distance === null || newer.score < row.best_distance) ? newer : null;
    const why = row.status === "gap" ? "marked" : row.refused > 0 ? "refused" : "far";
    return { ...v, why, answered_by: answered, nearer_now: nearer };
  });
  return { gaps, limit };
}

export function gapsCsv(list: GapList): string {
  const header = [
    "question",
    "asked",
    "last_asked",
    "why",
    "best_distance",
    "closest_document",
    "closest_distance",
    "answered_by",
    "answered_distance",
    "nearer_now",
  ];
  const lines = list.gaps.map((g) =>
    csvLine([
      g.text,
      g.asked,
      g.last_asked,
      g.why,
      g.best_distance,
      g.closest?.filename ?? null,
      g.closest?.score ?? null,
      g.answered_by?.filename ?? null,
      g.answered_by?.score ?? null,
      g.nearer_now?.filename ?? null,
    ]),
  );
  return [header.join(","), ...lines].join("\r\n") + "\r\n";
}
