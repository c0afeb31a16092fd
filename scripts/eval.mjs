#!/usr/bin/env node
// `npm run eval -- --agent <id or name> [--pairs file.csv] [--k 3] [--min-recall 0.8] [--suggest-cut] [--url http://localhost:3000]`
// A recall gate for CI against a running app: imports the pairs file if given, runs an
// evaluation, prints every pair and the summary (with --suggest-cut, the no-match cut its pairs
// recommend). Exit 0: passed; 1: recall@k below
// --min-recall; 2: bad arguments, a rejected pairs file or an unreachable app.
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";

const USAGE =
  "Usage: npm run eval -- --agent <id or name> [--pairs file.csv|file.jsonl] [--k 3] [--min-recall 0.8] [--suggest-cut] [--url http://localhost:3000]";

class UsageError extends Error {}

function options(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      agent: { type: "string" },
      pairs: { type: "string" },
      k: { type: "string", default: "3" },
      "min-recall": { type: "string" },
      "suggest-cut": { type: "boolean", default: false },
      url: { type: "string", default: process.env.KB_URL ?? "http://localhost:3000" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) return { help: true };
  if (!values.agent) throw new UsageError("--agent is required.");
  const k = Number(values.k);
  if (!Number.isInteger(k) || k < 1 || k > 20) throw new UsageError("--k must be an integer from 1 to 20.");
  const min = values["min-recall"] === undefined ? undefined : Number(values["min-recall"]);
  if (min !== undefined && !(min >= 0 && min <= 1)) throw new UsageError("--min-recall must be a number from 0 to 1, e.g. 0.8.");
  return {
    agent: values.agent,
    pairs: values.pairs,
    k,
    minRecall: min,
    suggestCut: values["suggest-cut"],
    url: values.url.replace(/\/+$/, ""),
  };
}

async function api(base, pathname, init) {
  let res;
  try {
    // With ADMIN_PASSWORD set, the app needs a token (created under Settings → API tokens).
    const auth = process.env.KB_TOKEN ? { authorization: `Bearer ${process.env.KB_TOKEN}` } : {};
    res = await fetch(`${base}${pathname}`, { ...init, headers: { ...init?.headers, ...auth } });
  } catch (err) {
    throw new Error(`The app does not answer at ${base} (${err.cause?.code ?? err.message}); start it or pass --url.`);
  }
  const body = await res.json().catch(() => null);
  if (!res.ok && res.status !== 404)
    throw new Error(body?.error?.message ?? `${init?.method ?? "GET"} ${pathname} answered ${res.status}.`);
  return { status: res.status, body };
}

async function findAgent(base, ref) {
  if (/^\d+$/.test(ref)) {
    const { status, body } = await api(base, `/api/agents/${ref}`);
    if (status === 200) return body;
  }
  const { body } = await api(base, "/api/agents");
  const agent = body.agents.find((a) => a.name.toLowerCase() === ref.toLowerCase());
  if (!agent)
    throw new UsageError(
      `No agent with the id or name "${ref}". Agents: ${body.agents.map((a) => `${a.id} "${a.name}"`).join(", ") || "none"}.`,
    );
  return agent;
}

async function importPairs(base, agentId, file) {
  const type = /\.(jsonl|ndjson)$/i.test(file) ? "application/jsonl" : /\.json$/i.test(file) ? "application/json" : "text/csv";
  let text;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    throw new UsageError(`Cannot read the pairs file ${file}.`);
  }
  const { body } = await api(base, `/api/agents/${agentId}/pairs`, { method: "POST", headers: { "content-type": type }, body: text });
  // Re-importing the same file is expected in CI: pairs already there are not a problem.
  const problems = body.rejected.filter((r) => r.reason !== "duplicate");
  console.log(
    `${path.basename(file)}: ${body.accepted} new pairs, ${body.rejected.length - problems.length} already present, ${problems.length} rejected.`,
  );
  if (problems.length > 0) {
    for (const r of problems) console.log(`  line ${r.row}: ${r.reason}: ${r.message}`);
    throw new UsageError("Fix the rejected rows: the gate would not measure what the file says.");
  }
}

async function runEvaluation(base, agentId, k) {
  const started = await api(base, `/api/agents/${agentId}/evals`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ k, wait: false }),
  });
  const runId = started.body.run_id;
  // Polling rather than one long request: a large run would outlast HTTP client timeouts.
  for (;;) {
    const { body: run } = await api(base, `/api/agents/${agentId}/evals/${runId}`);
    if (run.status === "done") return run;
    if (run.status === "failed") throw new Error(`Run #${runId} failed: ${run.error}`);
    if (process.stderr.isTTY) process.stderr.write(`\rEvaluating run #${runId}: ${run.done_pairs}/${run.n_pairs} pairs`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

const pct = (v) => (v === null || v === undefined ? "n/a" : `${(v * 100).toFixed(1)}%`);
const cut = (s, n) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

function report(agent, run, k) {
  const outcome = (p) =>
    p.answerable === false
      ? p.refused
        ? "refused"
        : "ANSWERED"
      : p.missing
        ? "NOT INDEXED"
        : p.hit
          ? "hit"
          : p.beyond_cut
            ? "MISS (cut)"
            : "MISS";
  const rows = run.pairs.map((p) =>
    [
      outcome(p),
      p.missing || p.answerable === false ? "—" : (p.rank ?? "not found"),
      (p.answerable === false ? p.top_distance : p.best_distance)?.toFixed(4) ?? "—",
      p.answerable === false ? "(none: unanswerable)" : cut(p.expected, 32),
      cut(p.query.replace(/\s+/g, " "), 60),
    ].map(String),
  );
  const header = ["outcome", "rank", "distance", "expected", "query"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join("  ");
  console.log(line(header));
  for (const r of rows) console.log(line(r));
  const s = run.settings;
  const scored = run.n_pairs - run.n_missing;
  const hits = run.pairs.filter((p) => p.hit).length;
  console.log("");
  const weighting = s.query_weighting ? `, queries weighted (${s.query_weighting})` : "";
  console.log(
    `Run #${run.run_id} of agent "${agent.name}" (${agent.id}): ${s.embedding_model}${weighting}, ${s.document_count} documents, ${s.chunk_count} chunks`,
  );
  const label = (s) => s.padEnd(11);
  console.log(`${label(`recall@${k}`)}${pct(run.recall_at_k[String(k)])}  (${hits} of ${scored} pairs in the top ${k})`);
  console.log(`${label("MRR")}${run.mrr === null ? "n/a" : run.mrr.toFixed(3)}`);
  console.log(
    `${label("pairs")}${run.n_pairs}${run.n_missing ? ` (${run.n_missing} expect a document no longer indexed; left out of recall and MRR)` : ""}`,
  );
  if (run.n_unanswerable) console.log(`${label("")}${run.n_unanswerable} unanswerable (no expected document): left out of recall and MRR`);
  if (s.max_distance !== null && s.max_distance !== undefined)
    console.log(`${label("cut")}${s.max_distance} (results farther are dropped)`);
}

const cutText = (c) => (c === null ? "none" : String(c));
const figures = (p, c) =>
  `answers ${pct(p.answered)} of ${c.answerable} answerable pairs at k = ${c.k}, refuses ${pct(p.refused)} of ${c.unanswerable} unanswerable (balanced ${pct(p.balanced)})`;

async function suggestCut(base, agent, run, k) {
  const { body: c } = await api(base, `/api/agents/${agent.id}/evals/${run.run_id}/calibration?k=${k}`);
  console.log("");
  if (!c.recommended) {
    console.log(`No-match cut: not calibrated. ${c.reason}`);
    return;
  }
  console.log(`Recommended no-match cut: ${cutText(c.recommended.cut)}: ${figures(c.recommended, c)}.`);
  console.log(`At the current cut (${cutText(c.current.cut)}): ${figures(c.current, c)}.`);
  if (c.recommended.cut !== null && c.recommended.cut !== c.current.cut) {
    console.log(`Apply it on the Recall tab, or: PATCH /api/agents/${agent.id} {"max_distance": ${c.recommended.cut}}`);
  }
}

async function main() {
  let opts;
  try {
    opts = options(process.argv.slice(2));
  } catch (err) {
    console.error(`${err.message}\n${USAGE}`);
    return 2;
  }
  if (opts.help) {
    console.log(USAGE);
    return 0;
  }
  try {
    const agent = await findAgent(opts.url, opts.agent);
    if (opts.pairs) await importPairs(opts.url, agent.id, opts.pairs);
    const run = await runEvaluation(opts.url, agent.id, opts.k);
    if (process.stderr.isTTY) process.stderr.write("\n");
    report(agent, run, opts.k);
    if (opts.suggestCut) await suggestCut(opts.url, agent, run, opts.k);
    if (opts.minRecall === undefined) return 0;
    const recall = run.recall_at_k[String(opts.k)];
    if (recall === null || recall < opts.minRecall) {
      console.log(`FAIL: recall@${opts.k} ${pct(recall)} is below --min-recall ${pct(opts.minRecall)}.`);
      return 1;
    }
    console.log(`PASS: recall@${opts.k} ${pct(recall)} meets --min-recall ${pct(opts.minRecall)}.`);
    return 0;
  } catch (err) {
    console.error(err.message);
    return 2;
  }
}

process.exitCode = await main();
