import "server-only";
import { keywordMatches, keywordMatchesIn, type KeywordHit } from "../db/keyword-search";
import { AgentView, type AgentRef } from "../db/agent-view";
import { draftKeywordTable } from "./draft-keywords";

/**
 * The keyword side of retrieval: SQLite FTS5 bm25 over the agent's own index of its ready
 * chunks (lib/db/keyword-index.ts), so a word's rarity is counted among that agent's chunks only.
 * A user's text is never parsed as FTS syntax: it is cut into words, each quoted, joined with OR.
 */

/** The most query words sent to FTS5; more add time and little else. */
const MAX_TERMS = 32;

export type { KeywordHit };

/** The query's words, quoted for FTS5, or null when it has none (only punctuation, say). */
export function ftsTerms(query: string): string | null {
  const words = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])].slice(0, MAX_TERMS);
  return words.length ? words.map((w) => `"${w}"`).join(" OR ") : null;
}

/** The agent's best keyword matches for a query, best first. */
export function keywordRanking(ref: AgentRef, model: string, query: string, limit: number): KeywordHit[] {
  const terms = ftsTerms(query);
  if (!terms) return [];
  const agent = AgentView.of(ref);
  // A filtered view ranks the matches of its documents only.
  const only = agent.scope && [...agent.scope.documents.keys()];
  // A draft's view ranks in the index as the draft would leave it.
  return agent.draft
    ? keywordMatchesIn(draftKeywordTable(agent), model, terms, limit, only)
    : keywordMatches(agent.id, model, terms, limit, only);
}
