import "server-only";
import { findPair, type Pair } from "../db/pairs";
import { getGroup, groupFilter, groupText, setGroupStatus, type QuestionGroupRow } from "../db/questions";
import { addPair, expectedFilename } from "../evaluation/labeled-pairs";
import { AppError } from "../core/errors";
import { NO_DOCUMENT } from "../validations/pair";
import type { TriageInput } from "../validations/questions";

/**
 * One click of triage on a question: `label` makes it a labeled pair (source `log`) with the
 * document that answers it, `unanswerable` an unanswerable pair (it calibrates the no-match cut),
 * `gap` puts it on the list of articles to write, `ignore` leaves it out, `reopen` undoes any of
 * them (a pair made from it stays: delete it on the pairs page).
 */
export function triageQuestion(agentId: number, groupId: number, input: TriageInput): { group: QuestionGroupRow; pair: Pair | null } {
  getGroup(agentId, groupId); // not_found for another agent's or an unknown question
  if (input.action === "gap" || input.action === "ignore" || input.action === "reopen") {
    const status = input.action === "ignore" ? "ignored" : input.action === "reopen" ? "open" : "gap";
    setGroupStatus(agentId, groupId, status);
    return { group: getGroup(agentId, groupId), pair: null };
  }
  const text = input.query ?? groupText(agentId, groupId);
  if (!text) throw new AppError("not_found", `Question ${groupId} has no wording left in the log.`);
  const answerable = input.action === "label";
  const expected = input.action === "label" ? input.expected : NO_DOCUMENT;
  // The same pair may exist already (typed in, imported or labeled before): the question is labeled with it.
  const pair =
    findPair(agentId, text, answerable ? expectedFilename(agentId, expected) : NO_DOCUMENT) ??
    // The pair carries the metadata filter the question was asked with, so a run ranks it as the agent did.
    addPair(agentId, { query: text, expected, answerable, note: null, filter: groupFilter(agentId, groupId) ?? undefined }, "log");
  setGroupStatus(agentId, groupId, answerable ? "labeled" : "unanswerable", { id: pair.id, expected: pair.expected_filename });
  return { group: getGroup(agentId, groupId), pair };
}
