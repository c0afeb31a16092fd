import { NextResponse } from "next/server";
import { withAgent, type RouteCtx } from "@/lib/http/route";
import { AppError, notFound } from "@/lib/core/errors";
import { parseFilter, type Filter } from "@/lib/core/filter";
import { assertKnownKeys } from "@/lib/db/metadata";
import { agentCoverage, chunkCoverage, neverRetrieved, parseSince, type DocumentCoverage } from "@/lib/questions/coverage";
import { coverageQuerySchema } from "@/lib/validations/questions";

const ORDER: Record<string, (a: DocumentCoverage, b: DocumentCoverage) => number> = {
  "-retrieved": (a, b) => b.retrieved - a.retrieved || a.filename.localeCompare(b.filename),
  retrieved: (a, b) => a.retrieved - b.retrieved || a.filename.localeCompare(b.filename),
  filename: (a, b) => a.filename.localeCompare(b.filename),
  "-last_at": (a, b) => (b.last_at ?? "").localeCompare(a.last_at ?? "") || a.filename.localeCompare(b.filename),
};

function filterOf(agentId: number, raw: string | undefined): Filter | undefined {
  if (!raw) return undefined;
  let where: unknown;
  try {
    where = JSON.parse(raw);
  } catch {
    throw new AppError("invalid_filter", `filter is not valid JSON: give an object, as {"product": "router"}.`);
  }
  const filter = parseFilter(where ?? {});
  if (filter) assertKnownKeys(agentId, filter);
  return filter;
}

/**
 * What the agent's own calls (its searches and asks; the inspector's and evaluations' left out)
 * retrieved since `?since=` (`30d` by default, `12h`, an ISO date, or `all`): each served
 * document's count of calls, their best ranks, first and last time (`?sort=`, `?filter=` a
 * metadata filter); `?document_id=` that document's chunks; `?never=true` the documents never
 * retrieved, each with the logged question nearest to it (`?limit=` 20, `?offset=`).
 */
export const GET = withAgent<RouteCtx<"/api/agents/[id]/coverage">>("viewer", async ({ req, agent }) => {
  const q = coverageQuerySchema.parse(Object.fromEntries(new URL(req.url).searchParams));
  const since = parseSince(q.since ?? null);
  const filter = filterOf(agent.id, q.filter);
  if (q.document_id !== undefined) {
    const chunks = chunkCoverage(agent.id, q.document_id, since);
    if (!chunks) throw notFound(`Document ${q.document_id}`);
    return NextResponse.json(chunks);
  }
  if (q.never === "true") return NextResponse.json(await neverRetrieved(agent.id, since, q.limit ?? 20, q.offset ?? 0, filter));
  const coverage = agentCoverage(agent.id, since, filter);
  const documents = [...coverage.documents].sort(ORDER[q.sort ?? "-retrieved"]);
  const offset = q.offset ?? 0;
  return NextResponse.json({
    ...coverage,
    total: documents.length,
    offset,
    documents: q.limit === undefined ? documents.slice(offset) : documents.slice(offset, offset + q.limit),
  });
});
