import "server-only";
import { getSource, sourcePages, upsertPage } from "../db/sources";
import { invalid } from "../core/errors";
import { removePageDocument } from "./sync";

/**
 * Acts on a source's proposed removals: `remove` deletes the pages' documents, `keep` keeps
 * them (a later sync proposes them again while they are still gone). Only proposed pages.
 */
export async function resolveRemovals(
  agentId: number,
  sourceId: number,
  action: "remove" | "keep",
  urls: string[] | "all",
): Promise<{ removed: number; kept: number }> {
  getSource(agentId, sourceId);
  const proposed = sourcePages(sourceId).filter((p) => p.state === "removal_proposed");
  const chosen = urls === "all" ? proposed : proposed.filter((p) => urls.includes(p.url));
  if (urls !== "all" && chosen.length !== new Set(urls).size) {
    const missing = urls.filter((u) => !proposed.some((p) => p.url === u));
    throw invalid(`No proposed removal for ${missing.map((u) => `"${u}"`).join(", ")}; nothing was changed.`);
  }
  for (const page of chosen) {
    if (action === "remove") await removePageDocument(agentId, page);
    else upsertPage({ ...page, state: "active" });
  }
  return action === "remove" ? { removed: chosen.length, kept: 0 } : { removed: 0, kept: chosen.length };
}
