import "server-only";
import { db } from "../../db/client";
import { deletePair, getPair, listPairs, updatePair } from "../../db/pairs";
import { conflict } from "../../core/errors";

/** Accepts the agent's proposed pairs among `ids` (all of them when omitted), in one transaction; returns how many. */
export function acceptProposals(agentId: number, ids?: number[]): number {
  const wanted = ids ? new Set(ids) : null;
  const chosen = listPairs(agentId, { status: "proposed" }).filter((p) => !wanted || wanted.has(p.id));
  db().transaction(() => {
    for (const p of chosen) updatePair(agentId, p.id, { status: "accepted" });
  })();
  return chosen.length;
}

/** Rejecting a proposal deletes it; an accepted pair is refused, so a stale review list cannot delete one that counts in runs. */
export function rejectProposal(agentId: number, id: number): void {
  const pair = getPair(agentId, id);
  if (pair.status !== "proposed") throw conflict(`"${pair.query}" was accepted already: delete it from the labeled pairs instead.`);
  deletePair(agentId, id);
}
