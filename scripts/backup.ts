// `npm run backup -- <dir>`: a consistent copy of the app's data while it serves. The SQLite
// database (documents, chunk text, every chunk vector, pairs, runs, logs) is copied through
// SQLite's online backup API, with the session salt and a manifest (versions, counts,
// checksums) written last. Chroma's files are not needed: `npm run restore` writes the vectors
// from the copy. Exit 0: done; 1: it failed, and the folder is not a backup (no manifest).
import fs from "node:fs";
import path from "node:path";
import { ConfigError, parseEnv } from "../lib/env.mjs";
import { BackupError, createBackup } from "../lib/backup/files";

const USAGE = "Usage: npm run backup -- <dir>   (a new or empty folder; DATA_DIR names the data to copy, ./data by default)";

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  if (args.includes("-h") || args.includes("--help")) {
    console.log(USAGE);
    return 0;
  }
  if (args.length !== 1 || args[0]!.startsWith("-")) {
    console.error(USAGE);
    return 2;
  }
  const dest = path.resolve(args[0]!);
  try {
    const env = parseEnv(process.env);
    const version = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, "..", "package.json"), "utf8")).version as string;
    const started = performance.now();
    const m = await createBackup(path.resolve(env.DATA_DIR), dest, version);
    const mb = (m.files.find((f) => f.name === "kb.sqlite")!.bytes / 1024 / 1024).toFixed(1);
    console.log(
      `Backed up ${m.agents} agents, ${m.documents} documents (${m.chunks} chunks, ${m.vectors} vectors), ${m.pairs} pairs and ${m.runs} runs ` +
        `into ${dest} (${mb} MB) in ${((performance.now() - started) / 1000).toFixed(1)} s.`,
    );
    if (m.missing_vector_copies > 0)
      console.log(`${m.missing_vector_copies} documents have no copy of their vectors yet; a restore embeds them again from their text.`);
    return 0;
  } catch (err) {
    if (err instanceof BackupError || err instanceof ConfigError) {
      console.error(err.message);
      return 1;
    }
    throw err;
  }
}

process.exitCode = await main();
