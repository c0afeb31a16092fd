// Backups as folders: the SQLite copy (documents, chunk text, every chunk vector, pairs, runs,
// logs), the session salt, and a manifest written last, with each file's size and SHA-256.
// Chroma's own files are not copied: every vector it holds is also in the SQLite copy
// (chunk_vectors), so a restore writes them into an empty Chroma and needs no pause of the app.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { backupDatabase, summarizeDatabase, type DatabaseSummary } from "../db/backup";
import { tightenDataDir, type Tightening } from "../db/data-dir";

export const MANIFEST = "manifest.json";
const DATABASE = "kb.sqlite";
/** Besides the database: the salt session cookies are signed with, so sign-ins survive a restore. */
const EXTRA_FILES = ["session-salt"];

export interface Manifest extends DatabaseSummary {
  format: "kb-inspector-backup";
  version: 1;
  created_at: string;
  app_version: string;
  files: { name: string; bytes: number; sha256: string }[];
}

export class BackupError extends Error {}

async function sha256(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

const isEmptyDir = (dir: string) => !fs.existsSync(dir) || fs.readdirSync(dir).length === 0;

/** Copies a file into a 0700 folder of ours, as 0600 (copyFile gives it the source's mode first). */
function copyPrivate(from: string, to: string): void {
  fs.copyFileSync(from, to, fs.constants.COPYFILE_EXCL);
  fs.chmodSync(to, 0o600);
}

/** A 0700 folder inside `dir` to make files in before they are moved into `dir`; removed after `work`. */
async function inWorkFolder<T>(dir: string, prefix: string, work: (folder: string) => T | Promise<T>): Promise<T> {
  const folder = fs.mkdtempSync(path.join(dir, prefix));
  try {
    return await work(folder);
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

/** Copies DATA_DIR's database and salt into `dest` (a new or empty folder) while the app serves. */
export async function createBackup(dataDir: string, dest: string, appVersion: string): Promise<Manifest> {
  const db = path.join(dataDir, DATABASE);
  if (!fs.existsSync(db)) throw new BackupError(`There is no database at ${db}: is DATA_DIR the app's?`);
  if (!isEmptyDir(dest)) throw new BackupError(`${dest} is not empty; back up into a new or empty folder.`);
  fs.mkdirSync(dest, { recursive: true, mode: 0o700 });
  // Made in a 0700 folder, then moved in: no file is readable by others for a moment, anything
  // SQLite leaves beside its copy stays behind, and a backup that fails leaves `dest` empty.
  return inWorkFolder(dest, ".partial-", async (work) => {
    await backupDatabase(db, path.join(work, DATABASE));
    const names = [DATABASE];
    for (const extra of EXTRA_FILES) {
      if (!fs.existsSync(path.join(dataDir, extra))) continue;
      copyPrivate(path.join(dataDir, extra), path.join(work, extra));
      names.push(extra);
    }
    const files = [];
    for (const name of names)
      files.push({ name, bytes: fs.statSync(path.join(work, name)).size, sha256: await sha256(path.join(work, name)) });
    const manifest: Manifest = {
      format: "kb-inspector-backup",
      version: 1,
      created_at: new Date().toISOString(),
      app_version: appVersion,
      ...summarizeDatabase(path.join(work, DATABASE)),
      files,
    };
    for (const name of names) fs.renameSync(path.join(work, name), path.join(dest, name));
    // Last, and whole or not at all: a folder without a manifest is a backup that did not finish.
    fs.writeFileSync(path.join(work, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
    fs.renameSync(path.join(work, MANIFEST), path.join(dest, MANIFEST));
    return manifest;
  });
}

/** The manifest of a backup whose every file has the size and SHA-256 it lists; a BackupError naming the first file that does not. */
export async function verifyBackup(dir: string): Promise<Manifest> {
  const file = path.join(dir, MANIFEST);
  if (!fs.existsSync(file)) throw new BackupError(`${dir} has no ${MANIFEST}: it is not a backup, or its backup did not finish.`);
  let manifest: Manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch {
    throw new BackupError(`${MANIFEST} in ${dir} is not valid JSON: the backup is damaged.`);
  }
  if (manifest.format !== "kb-inspector-backup" || manifest.version !== 1)
    throw new BackupError(`${MANIFEST} is not a KB Inspector backup manifest of version 1.`);
  if (!manifest.files?.some((f) => f.name === DATABASE)) throw new BackupError(`${MANIFEST} lists no ${DATABASE}.`);
  for (const f of manifest.files) {
    const p = path.join(dir, path.basename(f.name));
    if (!fs.existsSync(p)) throw new BackupError(`${f.name} is missing from the backup.`);
    const bytes = fs.statSync(p).size;
    if (bytes !== f.bytes)
      throw new BackupError(
        `${f.name} failed its checksum: ${bytes} bytes where the manifest says ${f.bytes} (truncated or altered); nothing was restored.`,
      );
    if ((await sha256(p)) !== f.sha256)
      throw new BackupError(
        `${f.name} failed its checksum: its SHA-256 differs from the manifest's (altered or damaged); nothing was restored.`,
      );
  }
  return manifest;
}

/**
 * Copies a verified backup's files into `dataDir`, which must be empty unless `force` (then its
 * database, salt and Chroma data are replaced). The files land 0600 and the folder is made 0700,
 * as the app keeps them; what could not be tightened (another user's folder) is returned.
 */
export async function restoreFiles(dir: string, manifest: Manifest, dataDir: string, force: boolean): Promise<Tightening> {
  if (!isEmptyDir(dataDir)) {
    if (!force)
      throw new BackupError(
        `${dataDir} is not empty; restore into an empty DATA_DIR, or pass --force to replace what it holds (stop the app first).`,
      );
    // The count of Chroma restarts already checked goes with Chroma's folder, or new ones would pass unchecked.
    const replaced = [
      DATABASE,
      `${DATABASE}-wal`,
      `${DATABASE}-shm`,
      `${DATABASE}-journal`,
      ...EXTRA_FILES,
      "chroma",
      "unclean-restarts-checked",
    ];
    for (const name of replaced) fs.rmSync(path.join(dataDir, name), { recursive: true, force: true });
  }
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  await inWorkFolder(dataDir, ".restoring-", (work) => {
    const names = manifest.files.map((f) => path.basename(f.name));
    for (const name of names) copyPrivate(path.join(dir, name), path.join(work, name));
    for (const name of names) fs.renameSync(path.join(work, name), path.join(dataDir, name));
  });
  return tightenDataDir(dataDir);
}
