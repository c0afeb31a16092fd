// `npm run reindex [-- --agent ID]`: re-embeds, from their stored text, the documents that were
// embedded with another model than the configured one (after an upgrade of the local embedder or
// a change of provider/model), so that search works again. Safe to run while the app runs, and to
// run again after an interruption: a document switches model only once all its vectors are written.
import fs from "node:fs";
import path from "node:path";
import { ConfigError, parseEnv } from "../lib/env.mjs";
import { startChroma, waitForHeartbeat } from "./chroma-server.mjs";

const USAGE = `Usage: npm run reindex [-- --agent ID]

Re-embeds every ready document whose embedding model differs from the configured one
(EMBEDDING_PROVIDER, OPENAI_EMBEDDING_MODEL, ...), for all agents or only agent ID.
Uses CHROMA_URL when set; otherwise the Chroma of a running \`npm start\` on the same
DATA_DIR, or starts the embedded one for the duration of the command.`;

function parseArgs(argv: string[]): { agentId?: number } {
  const out: { agentId?: number } = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "-h" || arg === "--help") {
      console.log(USAGE);
      process.exit(0);
    }
    const value = arg === "--agent" ? argv[++i] : arg.startsWith("--agent=") ? arg.slice(8) : undefined;
    if (value === undefined) fail(`Unknown argument "${arg}".\n\n${USAGE}`);
    if (!/^\d+$/.test(value)) fail(`--agent needs an agent id (a number), got "${value ?? ""}".`);
    out.agentId = Number(value);
  }
  return out;
}

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

/** The port of a `chroma run --path <dir>` already serving this data directory (Linux /proc). */
function runningChroma(dataDir: string): string | null {
  let pids: string[];
  try {
    pids = fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p));
  } catch {
    return null; // no /proc: not Linux
  }
  for (const pid of pids) {
    let args: string[];
    try {
      args = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    } catch {
      continue;
    }
    const at = (flag: string) => {
      const i = args.indexOf(flag);
      return i >= 0 ? args[i + 1] : undefined;
    };
    const dir = at("--path");
    if (!args.includes("run") || !dir || path.resolve(dir) !== dataDir) continue;
    const port = at("--port");
    if (port) return `http://${at("--host") ?? "127.0.0.1"}:${port}`;
  }
  return null;
}

function progressBar(p: {
  documentsDone: number;
  documents: number;
  chunksDone: number;
  chunks: number;
  current?: { agent_id: number; filename: string };
}): string {
  const width = 28;
  const ratio = p.chunks > 0 ? Math.min(1, p.chunksDone / p.chunks) : p.documentsDone / Math.max(1, p.documents);
  const filled = Math.round(ratio * width);
  const where = p.current ? `  agent ${p.current.agent_id}: ${p.current.filename}` : "";
  return (
    `[${"#".repeat(filled)}${".".repeat(width - filled)}] ${String(Math.round(ratio * 100)).padStart(3)}%  ` +
    `${p.documentsDone}/${p.documents} documents, ${p.chunksDone}/${p.chunks} chunks${where}`
  );
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  let env;
  try {
    env = parseEnv(process.env);
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }

  let stopChroma: (() => Promise<void>) | null = null;
  if (!env.CHROMA_URL) {
    const chromaDir = path.join(env.DATA_DIR, "chroma");
    const running = runningChroma(chromaDir);
    if (running) {
      await waitForHeartbeat(running, 5_000);
      process.env.CHROMA_URL = running;
      console.log(`Using the running app's Chroma at ${running}.`);
    } else {
      const chroma = await startChroma({ dataDir: chromaDir, restart: false });
      process.env.CHROMA_URL = chroma.url;
      stopChroma = chroma.stop;
    }
  }

  try {
    // Imported only now: lib/ reads the environment (CHROMA_URL) on first use.
    const { documentsToReembed, dropEmptyCollections, reembedDocuments } = await import("../lib/index-upkeep/re-embed");
    const { embedder } = await import("../lib/embeddings/configured");
    const model = embedder().model;
    const todo = documentsToReembed(args.agentId);
    const scope = args.agentId === undefined ? "" : ` of agent ${args.agentId}`;
    if (todo.length === 0) {
      console.log(`Nothing to re-embed: every ready document${scope} already uses ${model}.`);
    } else {
      const agents = new Set(todo.map((d) => d.agent_id)).size;
      const from = [...new Set(todo.map((d) => d.embedding_model))].join(", ");
      console.log(`Re-embedding ${todo.length} documents of ${agents} agent(s) from ${from} to ${model}...`);
    }
    const tty = process.stderr.isTTY;
    let lastLogged = -1;
    const started = performance.now();
    const summary = await reembedDocuments({
      agentId: args.agentId,
      onProgress: (p) => {
        if (tty) {
          process.stderr.write(`\r${progressBar(p).slice(0, (process.stderr.columns || 120) - 1)}\x1b[K`);
        } else {
          const tenth = Math.floor((10 * p.documentsDone) / Math.max(1, p.documents));
          if (tenth !== lastLogged) {
            lastLogged = tenth;
            console.error(progressBar({ ...p, current: undefined }));
          }
        }
      },
    });
    if (tty && todo.length > 0) process.stderr.write("\n");
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    if (todo.length > 0) console.log(`Re-embedded ${summary.documents} documents (${summary.chunks} chunks) in ${seconds} s.`);
    for (const f of summary.failed) {
      console.error(`  failed: agent ${f.document.agent_id}, document ${f.document.id} "${f.document.filename}": ${f.error}`);
    }
    if (summary.failed.length > 0) {
      console.error(`${summary.failed.length} document(s) keep their old vectors; fix the cause and run \`npm run reindex\` again.`);
      process.exitCode = 1;
    } else if (args.agentId === undefined) {
      const dropped = await dropEmptyCollections();
      if (dropped.length > 0) console.log(`Removed ${dropped.length} empty collection(s) of older models: ${dropped.join(", ")}.`);
    }
  } finally {
    await stopChroma?.();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
