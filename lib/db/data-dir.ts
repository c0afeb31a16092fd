// Modes of DATA_DIR: the app creates it 0700 and its files 0600, and tightens an install made
// before it did. Only the app's own files, named here, are touched; Chroma's folder and the
// cache are left as they are (DATA_DIR at 0700 already keeps every other user out of them).
import fs from "node:fs";
import path from "node:path";

/** The files the app keeps directly in DATA_DIR that hold data (or say how it is kept). */
export const DATA_FILES = ["kb.sqlite", "kb.sqlite-wal", "kb.sqlite-shm", "kb.sqlite-journal", "session-salt", "unclean-restarts-checked"];

export interface Tightening {
  /** "<name> 755 -> 700" for each file or folder whose mode was tightened. */
  tightened: string[];
  /** Why a file or folder that is readable by others could not be tightened. */
  failed: string[];
}

interface Options {
  /** How a mode is changed; a test injects a refusal to stand in for a file of another user. */
  fchmod?: (fd: number, mode: number) => void;
  /** The app's user, named in the log when a file belongs to another; null where there are no uids. */
  uid?: number | null;
}

const octal = (mode: number) => (mode & 0o777).toString(8);

/**
 * Sets DATA_DIR to 0700 and the app's files in it to 0600 where they are looser. A file is opened
 * without following a symbolic link and changed through its descriptor, so a link (or one swapped
 * in meanwhile) never has its target changed. A refusal (another user's file, a read-only disk)
 * is reported, not thrown: the app runs as it did before, and the log says what to do.
 */
export function tightenDataDir(dir: string, options: Options = {}): Tightening {
  const out: Tightening = { tightened: [], failed: [] };
  const change = { fchmod: options.fchmod ?? fs.fchmodSync, uid: options.uid === undefined ? (process.getuid?.() ?? null) : options.uid };
  // DATA_DIR itself may be a link the user chose (to another disk): its target is the app's folder.
  tighten(dir, "the folder", 0o700, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY, out, change);
  const flags = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;
  for (const name of DATA_FILES) tighten(path.join(dir, name), name, 0o600, flags, out, change);
  return out;
}

/** The folder is wanted 0700, the files 0600. */
const isKind = (st: fs.Stats, mode: number) => (mode === 0o700 ? st.isDirectory() : st.isFile());

type Change = { fchmod: (fd: number, mode: number) => void; uid: number | null };

function refused(name: string, st: fs.Stats, code: string | undefined, change: Change): string {
  const owner = change.uid !== null && st.uid !== change.uid ? `, owned by uid ${st.uid} while the app runs as uid ${change.uid}` : "";
  return `${name} stays ${octal(st.mode)} (${code}${owner})`;
}

function tighten(file: string, name: string, mode: number, flags: number, out: Tightening, change: Change) {
  let fd: number;
  try {
    fd = fs.openSync(file, flags);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // Absent, or a symbolic link (ELOOP): not a file of the app's to change.
    if (code === "ENOENT" || code === "ELOOP") return;
    const st = (mode === 0o700 ? fs.statSync : fs.lstatSync)(file, { throwIfNoEntry: false });
    if (st && isKind(st, mode) && (st.mode & 0o077) !== 0) out.failed.push(refused(name, st, code, change));
    return;
  }
  try {
    const st = fs.fstatSync(fd);
    // A folder, fifo or device under one of the app's file names is not the app's file.
    if (!isKind(st, mode) || (st.mode & 0o077) === 0) return;
    try {
      change.fchmod(fd, mode);
      out.tightened.push(`${name} ${octal(st.mode)} -> ${octal(mode)}`);
    } catch (err) {
      out.failed.push(refused(name, st, (err as NodeJS.ErrnoException).code, change));
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** The log lines for a tightening: one saying what changed, one saying what could not be. */
export function logTightening(dir: string, t: Tightening, log: Pick<Console, "log" | "warn"> = console): void {
  if (t.tightened.length > 0) log.log(`[kb-inspector] DATA_DIR ${dir} made readable by this user only: ${t.tightened.join(", ")}`);
  if (t.failed.length > 0) {
    log.warn(
      `[kb-inspector] DATA_DIR ${dir} is open to other users and could not be tightened: ${t.failed.join("; ")}. ` +
        `As the owner of ${dir}, run: chmod 700 ${dir} && chmod 600 ${dir}/kb.sqlite* ${dir}/session-salt`,
    );
  }
}
