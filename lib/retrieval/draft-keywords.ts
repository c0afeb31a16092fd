import "server-only";
import { randomUUID } from "node:crypto";
import { db } from "../db/client";
import type { AgentView } from "../db/agent-view";
import { buildTempKeywordTable, dropTempKeywordTable } from "../db/keyword-index";

/**
 * The keyword index as a draft would leave it: a table of the connection's temporary schema
 * (never written to the database file, gone with the process) holding the chunks of the ready
 * documents the draft keeps and of its staged versions, indexed the way the agent's own table
 * is. The agent's table is a function of the chunks it holds (lib/db/keyword-index.ts), so its
 * bm25 figures once the draft is published are the ones this table gives now.
 */

/** The view's table, made when first asked for in the request; dropped by dropDraftKeywords. */
export const draftKeywordTable = (view: AgentView): string =>
  view.memo("keyword table", () =>
    buildTempKeywordTable(db(), `draft_keywords_${randomUUID().replaceAll("-", "")}`, view.id, new Set(view.draft!.removed.keys()), [
      ...view.draft!.added.keys(),
    ]),
  );

/** Drops the view's table, if one was made (the request is done with it). */
export function dropDraftKeywords(view: AgentView): void {
  if (!view.draft) return;
  const name = view.memo<string | null>("keyword table", () => null);
  if (name) dropTempKeywordTable(db(), name);
}
