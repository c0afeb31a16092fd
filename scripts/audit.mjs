#!/usr/bin/env node
// `npm run audit [-- --repair] [--reachability] [--rebuild] [--url http://localhost:3000] [--json]`
// Compares the running app's SQLite with its Chroma and prints what does not match; with
// --repair, fixes what it can first; with --reachability, also queries every chunk with its own
// vector to find chunks the index cannot return (slow: 5.5 s at 3,000 chunks, 43 s at 10,000);
// with --rebuild, first rebuilds the vector index (every vector copied into a new collection,
// uploads waiting meanwhile). Exit 0: consistent; 1: problems left; 2: the app does
// not answer or refused. With ADMIN_PASSWORD set, pass a token in KB_TOKEN.
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    repair: { type: "boolean", default: false },
    reachability: { type: "boolean", default: false },
    rebuild: { type: "boolean", default: false },
    json: { type: "boolean", default: false },
    url: { type: "string", default: process.env.KB_URL ?? "http://localhost:3000" },
  },
});
const base = values.url.replace(/\/+$/, "");
const headers = process.env.KB_TOKEN ? { authorization: `Bearer ${process.env.KB_TOKEN}` } : {};

async function call(method, pathname, accept = []) {
  let res;
  try {
    res = await fetch(`${base}${pathname}`, { method, headers });
  } catch (err) {
    console.error(`The app does not answer at ${base} (${err.cause?.code ?? err.message}); start it or pass --url.`);
    process.exit(2);
  }
  const body = await res.json().catch(() => null);
  if (!res.ok && !accept.includes(res.status)) {
    console.error(`${method} ${pathname} answered ${res.status}: ${body?.error?.message ?? "no details"}`);
    process.exit(2);
  }
  return body;
}

const list = (title, rows, line) => {
  console.log(`${title}: ${rows.length}`);
  for (const r of rows.slice(0, 20)) console.log(`  ${line(r)}`);
  if (rows.length > 20) console.log(`  ... and ${rows.length - 20} more`);
};

if (values.rebuild) {
  // The request starts it; its progress and outcome are in /api/health until it is over.
  const { rebuild: started } = await call("POST", "/api/audit/rebuild");
  let state = started;
  let shown = -1;
  for (;;) {
    await new Promise((r) => setTimeout(r, 1_000));
    state = (await call("GET", "/api/health", [503])).index.rebuild; // 503: unhealthy, the state is still there
    if (state.state === "idle" && state.started_at === started.started_at) break;
    if (!values.json && state.copied !== shown && state.total > 0) {
      console.log(`rebuilding the vector index: ${state.copied} of ${state.total} vectors copied`);
      shown = state.copied;
    }
  }
  if (state.last_error) {
    console.error(`The rebuild stopped: ${state.last_error} The old index is still in use.`);
    process.exit(2);
  }
  if (!values.json) console.log(`rebuilt the vector index: ${state.last_vectors} vectors copied in ${state.last_seconds} s`);
}
let report;
if (values.repair) {
  const repaired = await call("POST", `/api/audit/repair${values.reachability ? "?reachability=1" : ""}`);
  if (!values.json) {
    console.log(
      `repair: removed orphan vectors of ${repaired.removed_orphans.length} document(s), failed ${repaired.failed_stuck.length} stuck document(s), re-indexed ${repaired.reindexed.length} document(s), re-added ${repaired.readded_chunks ?? 0} unreachable chunk(s) (${repaired.repaired_chunks ?? 0} found again, ${repaired.still_unreachable ?? 0} still not); ${repaired.cleanup_left} clean-up(s) still waiting for Chroma`,
    );
  }
  report = repaired.after;
} else {
  report = await call("GET", `/api/audit${values.reachability ? "?reachability=1" : ""}`);
}
if (values.json) {
  console.log(JSON.stringify(report, null, 2));
} else {
  console.log(`checked ${report.checked_documents} documents and ${report.checked_vectors} vectors`);
  list(
    "orphan vectors",
    report.orphan_vectors,
    (o) => `agent ${o.agent_id} document ${o.document_id}: ${o.vectors} vector(s) in ${o.collection}`,
  );
  list(
    "missing vectors",
    report.missing_vectors,
    (d) => `agent ${d.agent_id} document ${d.document_id} "${d.filename}": ${d.found} of ${d.expected}`,
  );
  list(
    "count mismatches",
    report.count_mismatches,
    (d) => `agent ${d.agent_id} document ${d.document_id} "${d.filename}": ${d.found} vectors, ${d.expected} chunks`,
  );
  // The report names the first 20 unreachable chunks and counts them all.
  const unreachable = report.unreachable_chunks ?? [];
  if (report.reachability_checked == null)
    console.log("unreachable chunks: not checked (--reachability queries every chunk with its own vector)");
  else console.log(`unreachable chunks: ${report.unreachable_count ?? 0} of ${report.reachability_checked} queried with their own vector`);
  for (const c of unreachable)
    console.log(`  agent ${c.agent_id} document ${c.document_id} "${c.filename}" chunk ${c.chunk_index} (${c.id})`);
  if ((report.unreachable_count ?? 0) > unreachable.length) console.log(`  ... and ${report.unreachable_count - unreachable.length} more`);
  list(
    "stuck documents",
    report.stuck_documents,
    (d) => `agent ${d.agent_id} document ${d.document_id} "${d.filename}" indexing since ${d.since}`,
  );
  list(
    "awaiting clean-up",
    report.awaiting_cleanup,
    (c) =>
      `agent ${c.agent_id} document ${c.document_id ?? "(all)"}: ${c.reason}, ${c.attempts} failed attempt(s), next at ${c.next_attempt_at}`,
  );
  console.log(report.ok ? "consistent" : "problems found (npm run audit -- --repair fixes what it can)");
}
process.exit(report.ok ? 0 : 1);
