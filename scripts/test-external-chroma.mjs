// Runs the integration tests that talk to Chroma once more, against a Chroma server started
// here as a "separate deployment" with a non-default tenant and database: the path a user takes
// with CHROMA_URL + CHROMA_TENANT + CHROMA_DATABASE. test/global-setup.ts creates the tenant and
// database on it (KB_TEST_CHROMA_*) and test/setup.ts hands them to every test file.
//
//   node scripts/test-external-chroma.mjs [more vitest arguments]
//
// Exits with vitest's exit code; the server is stopped in every case.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startChroma } from "./chroma-server.mjs";

const ROOT = path.resolve(import.meta.dirname, "..");

// The integration tests that talk to the shared test Chroma: under these folders, every test
// file that uses test/helpers, collectionFor or Chroma, except those that start (and kill)
// Chroma servers of their own (lib/vector-store/unavailable.test.ts, lib/ingest/faults.test.ts),
// which have no such tenant. Plus the check that the app really writes into the tenant, and one
// evaluation run end to end (the other evaluation tests read through the same retrieval code).
const FOLDERS = ["lib/vector-store", "lib/ingest", "lib/retrieval"];
const MORE = ["lib/evaluation/evaluation.test.ts"];
// Tests whose subject is the app's own work, not how it reaches a tenant: its ranking on a
// deliberately sparse Chroma graph, its compact tables, the keyword index and word statistics in
// SQLite, the distance cut. They were half of this run's time, which the whole suite runs anyway.
const NOT_AGAIN = new Set([
  "lib/retrieval/exact.test.ts",
  "lib/retrieval/inspect-misses.test.ts",
  "lib/retrieval/index-recall.test.ts",
  "lib/retrieval/compact.test.ts",
  "lib/retrieval/compact-serving.test.ts",
  "lib/retrieval/corpus-stats.test.ts",
  "lib/retrieval/keyword.test.ts",
  "lib/retrieval/cut.test.ts",
]);
const USES_CHROMA = /test\/helpers|collectionFor|\bChroma\b/;
const OWN_CHROMA = /\bstartChroma\b/;
const FILES = [
  "scripts/external-chroma.test.ts",
  ...FOLDERS.flatMap((folder) =>
    fs
      .readdirSync(path.join(ROOT, folder), { recursive: true })
      .map((f) => path.join(folder, String(f)))
      .filter((f) => f.endsWith(".test.ts"))
      .filter((f) => {
        const text = fs.readFileSync(path.join(ROOT, f), "utf8");
        return USES_CHROMA.test(text) && !OWN_CHROMA.test(text) && !NOT_AGAIN.has(f);
      })
      .sort(),
  ),
  ...MORE,
];

const TENANT = "kb-ci-tenant";
const DATABASE = "kb-ci-db";

const log = (msg) => console.error(`[test:external-chroma] ${msg}`);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kb-chroma-external-"));
let chroma = null;
let child = null;
let exitCode = 1;

// vitest runs in a process group of its own (npx -> sh -> vitest -> workers), so a signal to
// this script reaches all of it: passed on once, SIGKILL on a second one. Chroma is then stopped.
let signalled = null;
const signalTests = (signal) => {
  try {
    if (child?.pid) process.kill(-child.pid, signal);
  } catch {
    // ESRCH: already gone.
  }
};
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    signalTests(signalled ? "SIGKILL" : signal);
    signalled = signal;
  });
}

try {
  chroma = await startChroma({ dataDir: dir, restart: false, log });
  log(`separate Chroma at ${chroma.url}; tenant ${TENANT}, database ${DATABASE}; ${FILES.length} test files:`);
  log(FILES.join(" "));
  if (signalled) throw new Error(`${signalled} before the tests started`);
  exitCode = await new Promise((resolve, reject) => {
    child = spawn("npx", ["vitest", "run", ...FILES, ...process.argv.slice(2)], {
      cwd: ROOT,
      stdio: "inherit",
      detached: true,
      env: {
        ...process.env,
        KB_TEST_CHROMA_URL: chroma.url,
        KB_TEST_CHROMA_TENANT: TENANT,
        KB_TEST_CHROMA_DATABASE: DATABASE,
      },
    });
    child.on("error", reject);
    child.on("close", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
  if (signalled) {
    log(`${signalled}: tests stopped`);
    exitCode ||= 1;
  } else if (exitCode !== 0) {
    log(`vitest exited with code ${exitCode}; the end of Chroma's log:`);
    const lines = fs.readFileSync(path.join(dir, "chroma.log"), "utf8").trimEnd().split("\n");
    console.error(lines.slice(-30).join("\n"));
  }
} catch (err) {
  console.error(err);
  exitCode = 1;
} finally {
  try {
    await chroma?.stop();
  } catch (err) {
    console.error(err);
    exitCode ||= 1;
  }
  fs.rmSync(dir, { recursive: true, force: true });
}
process.exit(exitCode);
