#!/usr/bin/env node
// `npm start`: checks the configuration, builds if the sources changed, starts the
// embedded Chroma unless CHROMA_URL is set, serves the app, and seeds the demo agent
// on the first start with an empty DATA_DIR.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import { ConfigError, parseEnv } from "../lib/env.mjs";
import { startChroma } from "./chroma-server.mjs";
import { seedDemo } from "./demo-seed.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dev = process.argv.includes("--dev");
const log = (msg) => console.log(`[kb-inspector] ${msg}`);

let env;
try {
  env = parseEnv(process.env);
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(1);
  }
  throw err;
}

const nextBin = path.join(root, "node_modules", "next", "dist", "bin", "next");
const childEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", DATA_DIR: env.DATA_DIR };

/** A fingerprint of everything the build depends on, to rebuild only when it changed. */
function sourceFingerprint() {
  const hash = createHash("sha256");
  const walk = (p) => {
    const st = fs.statSync(p, { throwIfNoEntry: false });
    if (!st) return;
    if (st.isDirectory()) {
      for (const name of fs.readdirSync(p).sort()) walk(path.join(p, name));
    } else if (!p.endsWith(".test.ts")) {
      hash.update(`${path.relative(root, p)}:${st.size}:${st.mtimeMs}\n`);
    }
  };
  for (const p of ["app", "components", "lib", "public", "instrumentation.ts", "next.config.ts", "package-lock.json", "postcss.config.mjs", "tailwind.config.ts", "tsconfig.json"]) {
    walk(path.join(root, p));
  }
  return hash.digest("hex");
}

function buildIfNeeded() {
  const stamp = path.join(root, ".next", "kb-source-fingerprint");
  const fingerprint = sourceFingerprint();
  const built = fs.existsSync(path.join(root, ".next", "BUILD_ID")) && fs.existsSync(stamp) && fs.readFileSync(stamp, "utf8") === fingerprint;
  if (built) return;
  log("building the app (first start or sources changed)...");
  const res = spawnSync(process.execPath, [nextBin, "build"], { cwd: root, stdio: "inherit", env: childEnv });
  if (res.status !== 0) {
    console.error("The build failed; see the output above.");
    process.exit(res.status ?? 1);
  }
  fs.writeFileSync(stamp, fingerprint);
}

const firstStart = !fs.existsSync(path.join(env.DATA_DIR, "kb.sqlite"));
if (!dev) buildIfNeeded();

let chroma = null;
if (!env.CHROMA_URL) {
  log(`starting the embedded Chroma (data in ${path.join(env.DATA_DIR, "chroma")})...`);
  try {
    chroma = await startChroma({ dataDir: path.join(env.DATA_DIR, "chroma"), port: env.CHROMA_PORT, log });
  } catch (err) {
    console.error(`Could not start the embedded Chroma: ${err.message}`);
    process.exit(1);
  }
  childEnv.CHROMA_URL = chroma.url;
  log(`Chroma is answering at ${chroma.url}`);
}

const app = spawn(process.execPath, [nextBin, dev ? "dev" : "start", "-p", String(env.PORT)], {
  cwd: root,
  stdio: "inherit",
  env: childEnv,
});

let stopping = false;
async function shutdown(code) {
  if (stopping) return;
  stopping = true;
  if (app.exitCode === null) app.kill("SIGTERM");
  await chroma?.stop();
  process.exit(code);
}
process.on("SIGINT", () => shutdown(130));
process.on("SIGTERM", () => shutdown(143));
app.on("exit", (code) => shutdown(code ?? 1));

if (firstStart && env.KB_DEMO) {
  seedDemo(`http://127.0.0.1:${env.PORT}`, path.join(root, "demo"), log).catch((err) =>
    console.error(`[kb-inspector] the demo agent could not be created: ${err.message}`),
  );
}
