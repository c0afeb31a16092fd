// `npm run restore -- <dir> [--force]`: a backup made by `npm run backup` into DATA_DIR (which
// must be empty unless --force; stop the app first). Every file is checked against the
// manifest's SHA-256 before anything is written; then the database is put in place, Chroma
// (CHROMA_URL, or the embedded one started for the command) gets every vector from it under the
// same ids, and an audit checks the result. Exit 0: restored and the audit is clean; 1: refused
// (a damaged backup, a non-empty DATA_DIR) or the audit found problems; 2: bad arguments.
import path from "node:path";
import { ConfigError, parseEnv } from "../lib/env.mjs";
import { BackupError, restoreFiles, verifyBackup } from "../lib/backup/files";
import { logTightening } from "../lib/db/data-dir";
import { startChroma } from "./chroma-server.mjs";

const USAGE = "Usage: npm run restore -- <dir> [--force]   (into DATA_DIR, ./data by default; --force replaces what it holds)";

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  if (args.includes("-h") || args.includes("--help")) {
    console.log(USAGE);
    return 0;
  }
  const force = args.includes("--force");
  const rest = args.filter((a) => a !== "--force");
  if (rest.length !== 1 || rest[0]!.startsWith("-")) {
    console.error(USAGE);
    return 2;
  }
  let stopChroma: (() => Promise<void>) | null = null;
  try {
    const env = parseEnv(process.env);
    const dir = path.resolve(rest[0]!);
    const dataDir = path.resolve(env.DATA_DIR);
    const manifest = await verifyBackup(dir);
    logTightening(dataDir, await restoreFiles(dir, manifest, dataDir, force));
    console.log(
      `Backup of ${manifest.created_at} (app ${manifest.app_version}): ${manifest.documents} documents, ${manifest.vectors} vectors; files checked and copied into ${dataDir}.`,
    );
    if (!env.CHROMA_URL) {
      const chroma = await startChroma({ dataDir: path.join(dataDir, "chroma"), restart: false });
      process.env.CHROMA_URL = chroma.url;
      stopChroma = chroma.stop;
    }
    // Imported only now: lib/ reads the environment (DATA_DIR, CHROMA_URL) on first use.
    const { recoverInterruptedIngests } = await import("../lib/index-upkeep/recover");
    const { restoreVectors } = await import("../lib/backup/restore-vectors");
    const { auditIndex } = await import("../lib/index-upkeep/audit");
    const { auditSummary } = await import("../lib/index-upkeep/audit-summary");
    const { cleanupNow } = await import("../lib/ingest/cleanup");
    // A Chroma that holds this install's vectors already (CHROMA_URL) would mix two states of the data.
    const { ownCollections, chroma } = await import("../lib/vector-store/client");
    for (const c of await ownCollections()) {
      if ((await c.count()) === 0) continue;
      if (!force)
        throw new BackupError(
          `Chroma collection "${c.name}" holds vectors already; restore into an empty Chroma, or pass --force to delete the collection first.`,
        );
      await chroma().deleteCollection({ name: c.name });
    }
    // Uploads that were running when the backup was taken: failed, as after a stop.
    const interrupted = recoverInterruptedIngests();
    if (interrupted > 0)
      console.log(`${interrupted} documents were being indexed when the backup was taken: marked failed; upload them again.`);
    const started = performance.now();
    const r = await restoreVectors(
      (done) => process.stderr.isTTY && process.stderr.write(`\rWriting vectors: ${done}/${manifest.documents} documents`),
    );
    if (process.stderr.isTTY) process.stderr.write("\n");
    console.log(
      `Wrote ${r.vectors} vectors of ${r.documents} documents into Chroma in ${((performance.now() - started) / 1000).toFixed(1)} s.`,
    );
    if (r.re_embedded > 0)
      console.log(`${r.re_embedded} documents had no copy of their vectors in the backup and were embedded again from their text.`);
    if (r.left_for_reindex > 0)
      console.log(`${r.left_for_reindex} documents of another embedding model had no copy of their vectors: run \`npm run reindex\`.`);
    await cleanupNow();
    const audit = await auditIndex();
    console.log(auditSummary(audit));
    return audit.ok ? 0 : 1;
  } catch (err) {
    if (err instanceof BackupError || err instanceof ConfigError) {
      console.error(err.message);
      return 1;
    }
    throw err;
  } finally {
    await stopChroma?.();
  }
}

process.exitCode = await main();
