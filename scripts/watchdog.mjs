// Runs one command in its own process group and takes that group down with the parent:
// when the IPC channel to the parent closes (the parent exited, crashed or was SIGKILLed)
// or the parent sends SIGTERM, the group gets SIGTERM, then SIGKILL after the grace
// period. Node cannot ask the kernel for this (PR_SET_PDEATHSIG), hence this process.
// Usage (through scripts/supervise.mjs): watchdog.mjs <graceMs> <command> [args...]
import { spawn } from "node:child_process";
import os from "node:os";

const [graceArg, command, ...args] = process.argv.slice(2);
const graceMs = Number(graceArg) || 10_000;

let child = null;
let stopping = false;

const signalGroup = (signal) => {
  try {
    process.kill(-child.pid, signal);
  } catch {
    // ESRCH: nothing left in the group.
  }
};

function stop() {
  if (stopping) return;
  stopping = true;
  if (!child?.pid) process.exit(0);
  signalGroup("SIGTERM");
  setTimeout(() => signalGroup("SIGKILL"), graceMs).unref();
}

// Before spawning, so there is no moment where the parent can go without taking the child.
process.on("disconnect", stop);
process.on("SIGTERM", stop);
// The parent decides on Ctrl-C and hang-ups (it stops its children in order).
process.on("SIGINT", () => {});
process.on("SIGHUP", () => {});

const report = (message, then) => {
  if (process.connected) process.send(message, () => then());
  else then();
};

child = spawn(command, args, { stdio: ["ignore", "inherit", "inherit"], detached: true });
child.on("error", (err) => report({ error: err.message }, () => process.exit(127)));
child.on("spawn", () => {
  if (process.connected) process.send({ pid: child.pid });
  if (!process.connected) stop();
});
child.on("exit", (code, signal) => {
  // Whatever the leader left behind in its group (workers, helpers) goes with it.
  signalGroup("SIGKILL");
  report({ exit: { code, signal } }, () => process.exit(code ?? 128 + (os.constants.signals[signal] ?? 0)));
});
