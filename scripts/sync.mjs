#!/usr/bin/env node
// `npm run sync -- --agent <id or name> <folder> [--delete] [--dry-run] [--chunk-size N] [--overlap N] [--strategy boundary|fixed] [--metadata JSON] [--url http://localhost:3000]`
// Keeps an agent's documents in step with a folder through the app's HTTP API: uploads new and
// changed files (named by their path in the folder), re-chunks unchanged ones when chunk
// settings are given, and with --delete removes documents whose file is gone. Each run plans
// against the server afresh, so a re-run after an interruption finishes the job. Exit 0: in
// step; 1: a file was rejected or failed, or the app failed mid-run; 2: bad arguments, an
// unknown agent, an unreadable folder or an unreachable app.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const USAGE =
  "Usage: npm run sync -- --agent <id or name> <folder> [--delete] [--dry-run] [--chunk-size N] [--overlap N] [--strategy boundary|fixed] [--metadata JSON] [--url http://localhost:3000]";

// A copy of ACCEPTED_EXTENSIONS in lib/extract/detect.ts (scripts/sync.test.ts keeps them equal).
export const ACCEPTED_EXTENSIONS = [".txt", ".md", ".markdown", ".html", ".htm", ".pdf", ".docx", ".png", ".jpg", ".jpeg", ".webp"];
const STRATEGIES = ["boundary", "fixed"];
// The app's defaults (lib/core/chunking.ts): what the server uses for a setting not given.
const DEFAULT_SIZE = 800;
const DEFAULT_OVERLAP = 100;
const BATCH_FILES = 20;
const BATCH_BYTES = 32 * 1024 * 1024;
const TRIES = 5;

class UsageError extends Error {}

// The server's cleaning of a kept path (sanitizeDocumentPath in lib/validations/filename.ts, less
// its length caps), so the name compared here is the name the app stores.
const INVISIBLE = /[\u200B-\u200D\u2060\uFEFF\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;
const cleanSegment = (s) =>
  s
    .replace(INVISIBLE, "")
    .replace(/[\t\n\v\f\r\u0085]/g, " ")
    .replace(/[\u0000-\u001F\u007F-\u009F]/g, "")
    .replace(/\s+/g, " ")
    .normalize("NFC")
    .trim();
export const documentName = (relative) =>
  relative
    .split(/[\\/]/)
    .map(cleanSegment)
    .filter((s) => s && s !== "." && s !== "..")
    .join("/");

function options(argv) {
  const flag = { type: "boolean", default: false };
  const text = { type: "string" };
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      agent: text,
      delete: flag,
      "dry-run": flag,
      "chunk-size": text,
      overlap: text,
      strategy: text,
      metadata: text,
      url: { type: "string", default: process.env.KB_URL ?? "http://localhost:3000" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) return { help: true };
  if (!values.agent) throw new UsageError("--agent is required.");
  if (positionals.length !== 1)
    throw new UsageError(
      positionals.length === 0 ? "Name the folder to sync." : `Name one folder, not ${positionals.length}: ${positionals.join(" ")}.`,
    );
  const whole = (flag, min) => {
    const raw = values[flag];
    if (raw === undefined) return undefined;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > 100_000)
      throw new UsageError(`--${flag} must be a whole number from ${min} to 100000.`);
    return Number(raw);
  };
  const size = whole("chunk-size", 1);
  const overlap = whole("overlap", 0);
  if (values.strategy !== undefined && !STRATEGIES.includes(values.strategy))
    throw new UsageError(`--strategy must be one of: ${STRATEGIES.join(", ")}.`);
  // Only the settings given: the others are each document's own (a re-chunk) or the app's defaults (an upload).
  const settings = Object.fromEntries(
    Object.entries({ chunk_size: size, chunk_overlap: overlap, chunk_strategy: values.strategy }).filter(([, v]) => v !== undefined),
  );
  if ((overlap ?? DEFAULT_OVERLAP) >= (size ?? DEFAULT_SIZE)) {
    const shown = (v, d) => (v === undefined ? `${d}, the default` : v);
    throw new UsageError(
      `--overlap (${shown(overlap, DEFAULT_OVERLAP)}) must be smaller than --chunk-size (${shown(size, DEFAULT_SIZE)}).`,
    );
  }
  // Metadata for every file the run uploads, over each file's own front matter (checked by the app too).
  let metadata;
  if (values.metadata !== undefined) {
    try {
      metadata = JSON.parse(values.metadata);
    } catch {
      metadata = null;
    }
    if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata))
      throw new UsageError(`--metadata must be a JSON object, as '{"product": "router"}'.`);
  }
  return {
    agent: values.agent,
    folder: positionals[0],
    delete: values.delete,
    dryRun: values["dry-run"],
    settings,
    metadata: metadata === undefined ? undefined : JSON.stringify(metadata),
    url: values.url.replace(/\/+$/, ""),
  };
}

const sleep = (s) => new Promise((r) => setTimeout(r, s * 1000));

/**
 * One request; a 503 (Chroma down, the app starting) or, with `retry`, no answer at all (the app
 * restarting) is tried again up to TRIES times, over about 30 s. Other statuses are the caller's.
 */
async function api(base, pathname, init = {}, retry = false) {
  // With ADMIN_PASSWORD set, the app needs a token (created under Settings → API tokens).
  const auth = process.env.KB_TOKEN ? { authorization: `Bearer ${process.env.KB_TOKEN}` } : {};
  for (let attempt = 1; ; attempt++) {
    let res;
    let why;
    try {
      res = await fetch(`${base}${pathname}`, { ...init, headers: { ...init.headers, ...auth } });
    } catch (err) {
      why = err.cause?.code ?? err.message;
      if (!retry) throw new UsageError(`The app does not answer at ${base} (${why}); start it or pass --url.`);
    }
    const body = res ? await res.json().catch(() => null) : null;
    // A re-chunk whose Chroma writes failed answers 500 with the code: as retryable as a 503.
    const busy = !res || res.status === 503 || body?.document?.code === "vector_store_unavailable";
    if (!busy) return { status: res.status, body };
    // An upload's 503 message lists every file: one file's reason says it shorter.
    const said = body?.documents?.find((d) => d.code)?.message ?? body?.error?.message ?? body?.document?.message;
    const reason = res ? (said ?? `The app answered ${res.status}.`) : `The app does not answer at ${base} (${why}).`;
    if (attempt === TRIES) throw new Error(`${reason} Gave up after ${TRIES} tries.`);
    const after = res?.headers.get("retry-after") ?? "";
    const seconds = /^\d+$/.test(after) ? Math.min(Number(after), 10) : 2 ** attempt;
    console.log(`  ${reason} Trying again in ${seconds} s.`);
    await sleep(seconds);
  }
}

const failure = (res, what) => res.body?.error?.message ?? `${what} answered ${res.status}.`;

async function findAgent(base, ref) {
  if (/^\d+$/.test(ref)) {
    const res = await api(base, `/api/agents/${ref}`);
    if (res.status === 200) return res.body;
  }
  const res = await api(base, "/api/agents");
  if (res.status !== 200) throw new UsageError(failure(res, "GET /api/agents"));
  const agent = res.body.agents.find((a) => a.name.toLowerCase() === ref.toLowerCase());
  if (!agent)
    throw new UsageError(
      `No agent with the id or name "${ref}". Agents: ${res.body.agents.map((a) => `${a.id} "${a.name}"`).join(", ") || "none"}.`,
    );
  return agent;
}

/**
 * The folder's supported files, each with its document name, size and sha256, and the links not
 * followed with why. A link is followed only when its target lies inside the folder and is not
 * synced under its own name already (so no file outside the folder is read, and no loop).
 */
function walk(root) {
  if (!fs.existsSync(root)) throw new UsageError(`There is no folder ${root}.`);
  if (!fs.statSync(root).isDirectory()) throw new UsageError(`${root} is not a folder.`);
  const top = fs.realpathSync(root);
  const inside = (real) => real === top || real.startsWith(top + path.sep);
  const relative = (full) => path.relative(root, full).split(path.sep).join("/");
  const files = [];
  const skipped = [];
  const links = [];
  const dirs = new Map(); // real path of each folder read -> its name in the folder
  const synced = new Map(); // real path of each file synced -> its name in the folder
  let unsupported = 0;
  const addFile = (full, real) => {
    const rel = relative(full);
    if (!ACCEPTED_EXTENSIONS.includes(path.extname(full).toLowerCase())) unsupported++;
    else if (synced.has(real)) skipped.push({ rel, why: `the same file as ${synced.get(real)}, which is synced already` });
    else {
      synced.set(real, rel);
      files.push(describe(real, rel));
    }
  };
  const visit = (dir, real) => {
    if (dirs.has(real)) {
      const why = real === top ? "the synced folder itself" : `the same folder as ${dirs.get(real)}, which is synced already`;
      return void skipped.push({ rel: relative(dir), why });
    }
    dirs.set(real, relative(dir));
    let entries;
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    } catch (err) {
      // Fatal, not skipped: with --delete, a skipped folder's documents would be removed.
      throw new UsageError(`Cannot read the folder ${dir} (${err.code ?? err.message}).`);
    }
    for (const e of entries) {
      if (e.name.startsWith(".") || e.name === "node_modules") continue;
      const full = path.join(dir, e.name);
      if (e.isSymbolicLink()) links.push(full);
      else if (e.isDirectory()) visit(full, path.join(real, e.name));
      else if (e.isFile()) addFile(full, path.join(real, e.name));
      // Pipes, sockets and devices hold no document (and reading a pipe would wait forever).
    }
  };
  visit(root, top);
  // Links after the folder's own files and folders, so one to something synced anyway is left out rather than synced twice.
  for (let i = 0; i < links.length; i++) {
    const full = links[i];
    const rel = relative(full);
    let real;
    let stat;
    try {
      real = fs.realpathSync(full);
      stat = fs.statSync(real);
    } catch (err) {
      skipped.push({ rel, why: err.code === "ELOOP" ? "a link that loops" : "a link to nothing (broken)" });
      continue;
    }
    if (!inside(real)) skipped.push({ rel, why: `a link to ${real}, outside the folder` });
    else if (stat.isDirectory()) visit(full, real);
    else if (stat.isFile()) addFile(full, real);
    else skipped.push({ rel, why: "a link to something that is not a file or folder" });
  }
  const byName = (a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  return { files: files.sort(byName), unsupported, skipped: skipped.sort((a, b) => (a.rel < b.rel ? -1 : 1)) };
}

/** A file's bytes, read only if no part of its path has become a link since the folder was read. */
function readInFolder(real) {
  if (fs.realpathSync(real) !== real) throw new Error("part of its path became a link since the folder was read");
  const fd = fs.openSync(real, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  try {
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

function describe(full, rel) {
  let bytes;
  try {
    bytes = readInFolder(full);
  } catch (err) {
    // Fatal like an unreadable folder: with --delete, its document would be removed.
    throw new UsageError(`Cannot read ${full} (${err.code ?? err.message}).`);
  }
  return { full, rel, name: documentName(rel), size: bytes.byteLength, sha256: createHash("sha256").update(bytes).digest("hex") };
}

/** What the run has to do, from the folder's files and the agent's documents. */
function plan(files, documents, settings, del) {
  const ready = new Map(documents.filter((d) => d.status === "ready").map((d) => [d.filename, d]));
  const p = { new: [], changed: [], rechunk: [], unchanged: [], duplicate: [], failed: [], missing: [] };
  const byName = new Map();
  for (const f of files) {
    if (byName.has(f.name))
      p.failed.push({ name: f.name, message: `${f.rel} would have the same document name as ${byName.get(f.name).rel}; rename one` });
    else byName.set(f.name, f);
  }
  // The app keeps one document per content: content it will still hold is not uploaded again.
  const held = new Map();
  for (const d of ready.values()) {
    const f = byName.get(d.filename);
    if (f ? f.sha256 === d.sha256 : !del) held.set(d.sha256, d.filename);
  }
  for (const f of byName.values()) {
    const doc = ready.get(f.name);
    if (doc?.sha256 === f.sha256) {
      const target = { chunk_size: doc.chunk_size, chunk_overlap: doc.chunk_overlap, chunk_strategy: doc.chunk_strategy, ...settings };
      (Object.keys(settings).some((k) => target[k] !== doc[k]) ? p.rechunk : p.unchanged).push({ name: f.name, doc, target });
    } else if (held.has(f.sha256)) p.duplicate.push({ name: f.name, of: held.get(f.sha256) });
    else {
      held.set(f.sha256, f.name);
      (doc ? p.changed : p.new).push({ name: f.name, file: f });
    }
  }
  // Ready documents no file accounts for: their file is gone (or now holds another document's content).
  const accounted = new Set([...p.changed, ...p.rechunk, ...p.unchanged].map((x) => x.name));
  p.missing = [...ready.values()].filter((d) => !accounted.has(d.filename));
  return p;
}

const linksNotFollowed = (n) => `${n} link${n === 1 ? "" : "s"} not followed`;
const settingsText = (s) => `${s.chunk_size}/${s.chunk_overlap}/${s.chunk_strategy}`;

function printPlan(agent, root, p, del, unsupported) {
  const counts = [
    `${p.new.length} new`,
    `${p.changed.length} changed`,
    `${p.rechunk.length} to re-chunk`,
    `${p.unchanged.length} unchanged`,
    `${p.missing.length} missing from the folder`,
  ];
  if (p.duplicate.length) counts.push(`${p.duplicate.length} with the same content as another document`);
  if (p.failed.length) counts.push(`${p.failed.length} that cannot be synced`);
  if (p.skipped.length) counts.push(linksNotFollowed(p.skipped.length));
  console.log(`Plan for agent "${agent.name}" (${agent.id}) from ${root}: ${counts.join(", ")}.`);
  if (unsupported)
    console.log(
      `  (${unsupported} file${unsupported === 1 ? "" : "s"} of other types left out; supported: ${ACCEPTED_EXTENSIONS.join(" ")})`,
    );
  const row = (label, text) => console.log(`  ${label.padEnd(10)}${text}`);
  for (const x of p.new) row("new", x.name);
  for (const x of p.changed) row("changed", x.name);
  for (const x of p.rechunk) row("re-chunk", `${x.name} (${settingsText(x.doc)} → ${settingsText(x.target)})`);
  for (const d of p.missing) row("missing", `${d.filename} (${del ? "will be removed" : "kept; --delete would remove it"})`);
  for (const x of p.duplicate) row("duplicate", `${x.name} (same content as ${x.of}, which the app keeps instead; not uploaded)`);
  for (const x of p.failed) row("cannot", `${x.name}: ${x.message}`);
  for (const x of p.skipped) row("skipped", `${x.rel} (${x.why}; not followed)`);
}

/** Upload batches: at most BATCH_FILES files and BATCH_BYTES bytes each (a larger file goes alone). */
function batches(files) {
  const out = [];
  let bytes = 0;
  for (const f of files) {
    if (out.length === 0 || out.at(-1).length === BATCH_FILES || bytes + f.size > BATCH_BYTES) {
      out.push([]);
      bytes = 0;
    }
    out.at(-1).push(f);
    bytes += f.size;
  }
  return out;
}

const chunks = (n) => `${n} chunk${n === 1 ? "" : "s"}`;

async function carryOut(base, agent, p, opts) {
  const docs = `/api/agents/${agent.id}/documents`;
  const removals = opts.delete ? p.missing : [];
  const uploads = [...p.new, ...p.changed].sort((a, b) => (a.name < b.name ? -1 : 1)).map((x) => x.file);
  const total = removals.length + uploads.length + p.rechunk.length;
  const done = { added: 0, replaced: 0, rechunked: 0, removed: 0, present: 0, failed: p.failed.length };
  let step = 0;
  const line = (text) => console.log(`[${++step}/${total}] ${text}`);
  const failed = (name, message, outcome = "failed") => {
    done.failed++;
    line(`${outcome} ${name}: ${message}`);
  };

  // Removals first: a renamed file's content is then no longer a duplicate when it is uploaded.
  for (const d of removals) {
    const res = await api(base, `${docs}/${d.id}`, { method: "DELETE" }, true);
    if (res.status !== 204 && res.status !== 404) throw new Error(failure(res, `DELETE ${docs}/${d.id}`));
    done.removed++;
    line(`removed ${d.filename}`);
  }
  for (const batch of batches(uploads)) {
    const form = new FormData();
    const sent = [];
    for (const f of batch) {
      try {
        form.append("files", new Blob([readInFolder(f.full)]), f.name);
        sent.push(f);
      } catch (err) {
        failed(f.name, `cannot read it (${err.code ?? err.message})`);
      }
    }
    if (sent.length === 0) continue;
    // `keep`: the server names each document by the part's filename, folders included.
    form.append("paths", "keep");
    for (const [k, v] of Object.entries(opts.settings)) form.append(k, String(v));
    if (opts.metadata) form.append("metadata", opts.metadata);
    const res = await api(base, docs, { method: "POST", body: form }, true);
    if (!Array.isArray(res.body?.documents)) {
      // Too large for this server's limits: those files fail, the others can still go.
      if (res.status === 413) for (const f of sent) failed(f.name, failure(res, "The upload"));
      else throw new Error(failure(res, `POST ${docs}`));
      continue;
    }
    res.body.documents.forEach((r, i) => {
      const name = sent[i].name;
      const renamed = r.filename !== name ? ` (stored as "${r.filename}": rename the file, or each run uploads it again)` : "";
      if (r.outcome === "indexed" || r.outcome === "replaced") {
        done[r.outcome === "indexed" ? "added" : "replaced"]++;
        line(`${r.outcome === "indexed" ? "added" : "replaced"} ${name} (${chunks(r.chunk_count)})${renamed}`);
      } else if (r.outcome === "duplicate") {
        done.present++;
        line(`not added ${name}: ${r.message}`);
      } else failed(name, r.message, r.outcome);
    });
  }
  for (const { doc, target } of p.rechunk) {
    const res = await api(
      base,
      `${docs}/${doc.id}`,
      { method: "PATCH", headers: { "content-type": "application/json" }, body: JSON.stringify(target) },
      true,
    );
    const r = res.body?.document;
    if (r?.status === "ready") {
      done.rechunked++;
      line(`re-chunked ${doc.filename} (${chunks(r.chunk_count)})`);
    } else if (r || [404, 409, 422].includes(res.status))
      failed(doc.filename, r?.message ?? failure(res, "The re-chunk")); // gone meanwhile, or settings that do not suit it
    else throw new Error(failure(res, `PATCH ${docs}/${doc.id}`));
  }
  return done;
}

/** What a run leaves as it is, for its last line. */
function leftAlone(p, del) {
  const out = [];
  if (!del && p.missing.length)
    out.push(`${p.missing.length} missing from the folder (kept; --delete removes ${p.missing.length === 1 ? "it" : "them"})`);
  if (p.duplicate.length) out.push(`${p.duplicate.length} not uploaded (same content as another document)`);
  return out;
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
  // Every run plans against the server afresh, so stopping anywhere leaves nothing a re-run cannot finish.
  process.on("SIGINT", () => {
    console.log("\nInterrupted. A re-run of the same command finishes the job.");
    process.exit(130);
  });
  let started = false;
  try {
    const agent = await findAgent(opts.url, opts.agent);
    const { files, unsupported, skipped } = walk(opts.folder);
    const res = await api(opts.url, `/api/agents/${agent.id}/documents`);
    if (res.status !== 200) throw new UsageError(failure(res, `GET /api/agents/${agent.id}/documents`));
    const p = { ...plan(files, res.body.documents, opts.settings, opts.delete), skipped };
    if (opts.delete && files.length === 0 && p.missing.length > 0) {
      throw new UsageError(
        `${opts.folder} has no supported files: refusing to --delete all ${p.missing.length} documents of the agent. Check the folder.`,
      );
    }
    printPlan(agent, opts.folder, p, opts.delete, unsupported);
    if (opts.dryRun) {
      console.log("Dry run: nothing was changed.");
      return 0;
    }
    if (p.new.length + p.changed.length + p.rechunk.length + (opts.delete ? p.missing.length : 0) + p.failed.length === 0) {
      const notes = [`${p.unchanged.length} documents unchanged, nothing to do`, ...leftAlone(p, opts.delete)];
      console.log(`Agent "${agent.name}" (${agent.id}) is in step with the folder: ${notes.join("; ")}.`);
      return 0;
    }
    started = true;
    const done = await carryOut(opts.url, agent, p, opts);
    const counts = [
      `${done.added} added`,
      `${done.replaced} replaced`,
      `${done.rechunked} re-chunked`,
      `${done.removed} removed`,
      `${p.unchanged.length} unchanged`,
    ];
    const present = done.present ? [`${done.present} already present`] : [];
    console.log(
      `Agent "${agent.name}" (${agent.id}): ${[...counts, ...leftAlone(p, opts.delete), ...present, `${done.failed} failed`].join(", ")}.`,
    );
    if (done.failed > 0) {
      console.log("Fix or remove the files that failed; a re-run tries them again.");
      return 1;
    }
    return 0;
  } catch (err) {
    if (!started) {
      console.error(err.message);
      return 2;
    }
    console.error(`${err.message}\nThe sync stopped part-way; a re-run of the same command finishes the job.`);
    return 1;
  }
}

// Run as a command, not when a test imports it for ACCEPTED_EXTENSIONS and documentName.
if (fs.existsSync(process.argv[1] ?? "") && fs.realpathSync(process.argv[1]) === fileURLToPath(import.meta.url))
  process.exitCode = await main();
