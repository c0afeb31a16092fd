import { NextResponse } from "next/server";
import { readJson, withAgent, type RouteCtx } from "@/lib/http/route";
import { invalid } from "@/lib/core/errors";
import { importPairs } from "@/lib/evaluation/labeled-pairs";
import { parseCsv, parseJsonl, toCsv, toJsonl, type RawPairRow } from "@/lib/evaluation/pair-files";
import { pairView } from "@/lib/evaluation/views";
import { listPairs, pairsToRun } from "@/lib/db/pairs";
import { slug } from "@/lib/format/slug";
import { importBodySchema, MAX_IMPORT_ROWS } from "@/lib/validations/pair";

const FORMATS = {
  csv: { type: "text/csv; charset=utf-8", render: toCsv },
  jsonl: { type: "application/jsonl; charset=utf-8", render: toJsonl },
};

export const GET = withAgent<RouteCtx<"/api/agents/[id]/pairs">>("viewer", async ({ req, agent }) => {
  const format = new URL(req.url).searchParams.get("format");
  if (!format || format === "json") return NextResponse.json({ pairs: listPairs(agent.id).map(pairView) });
  // A file holds the pairs that count: proposals awaiting review stay out of it.
  const pairs = pairsToRun(agent.id).map(pairView);
  if (!(format in FORMATS)) throw invalid('format must be "json", "csv" or "jsonl".');
  const { type, render } = FORMATS[format as keyof typeof FORMATS];
  return new Response(render(pairs), {
    headers: { "content-type": type, "content-disposition": `attachment; filename="${slug(agent)}-pairs.${format}"` },
  });
});

/** A JSON array of {query, expected[, note]}, or the same rows as CSV (text/csv) or JSONL. */
async function readRows(req: Request): Promise<RawPairRow[]> {
  const type = req.headers.get("content-type")?.toLowerCase() ?? "";
  let rows: RawPairRow[];
  if (type.startsWith("text/csv")) rows = parseCsv(await req.text());
  else if (/jsonl|ndjson/.test(type)) rows = parseJsonl(await req.text());
  else return importBodySchema.parse(await readJson(req)).map((r, i) => ({ ...r, row: i + 1 }));
  if (rows.length > MAX_IMPORT_ROWS) throw invalid(`At most ${MAX_IMPORT_ROWS} pairs per import.`);
  return rows;
}

export const POST = withAgent<RouteCtx<"/api/agents/[id]/pairs">>("editor", async ({ req, agent }) => {
  const report = importPairs(agent.id, await readRows(req));
  return NextResponse.json({ ...report, total: listPairs(agent.id).length }, { status: report.accepted > 0 ? 201 : 200 });
});
