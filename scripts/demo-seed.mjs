// Creates the demo agent through the app's own API, so it is indexed exactly like an upload, then
// gives it labeled pairs and one finished evaluation run: every page has something to show.
// While it runs, a file in DATA_DIR says so and /api/health answers 503 "starting"
// (lib/index-upkeep/health.ts), so nobody who waits for health searches a half-made agent.
import fs from "node:fs";
import path from "node:path";

/** The k the demo's evaluation runs at; demo/pairs.csv has a pair that misses at it. */
export const DEMO_EVAL_K = 3;

export const DEMO_AGENT_NAME = "Support demo";

/**
 * In DATA_DIR while the demo agent is owed: `{"agent_id": id | null}`, plus `"failed"` once a
 * seeding gave up. Read by lib/index-upkeep/health.ts, which keeps the same name.
 */
export const DEMO_SEED_FILE = "demo-seed.json";

/** The articles of the demo directory, in name order; pairs.csv there is the labeled pairs. */
export const demoArticles = (dir) =>
  fs
    .readdirSync(dir)
    .filter((name) => name.endsWith(".md"))
    .sort();

const markerPath = (dataDir) => path.join(dataDir, DEMO_SEED_FILE);

/** The marker's content, or null when no seeding is owed (a marker that cannot be read counts as none). */
export function readDemoSeed(dataDir) {
  try {
    return JSON.parse(fs.readFileSync(markerPath(dataDir), "utf8"));
  } catch {
    return null;
  }
}

// Written whole then renamed: health never reads half a marker.
function writeDemoSeed(dataDir, state) {
  const tmp = `${markerPath(dataDir)}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(state), { mode: 0o600 });
  fs.renameSync(tmp, markerPath(dataDir));
}

/**
 * What the launcher does about the demo before the server starts: "seed" (the marker is written,
 * so health says "starting" from the server's first answer), "signed-in" (ADMIN_PASSWORD is set:
 * no demo) or "none". A seeding cut short by a crash or a failure left its marker: it is owed
 * still and resumes; a start that will not seed drops the marker, so "starting" never sticks.
 */
export function planDemoSeed({ dataDir, firstStart, demo, signedIn }) {
  const owed = readDemoSeed(dataDir);
  if (!firstStart && !owed) return "none";
  if (!demo || signedIn) {
    fs.rmSync(markerPath(dataDir), { force: true });
    return firstStart && demo ? "signed-in" : "none";
  }
  // A marker beside no database names an agent of a database that is gone.
  writeDemoSeed(dataDir, { agent_id: firstStart ? null : (owed?.agent_id ?? null) });
  return "seed";
}

async function waitForApp(base, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${base}/api/agents`);
      if (res.ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`the app did not answer at ${base}`);
}

async function send(what, url, init) {
  const res = await fetch(url, init);
  if (!res.ok) throw new Error(`${what} answered ${res.status}`);
  return res.json();
}

/** The agent a resumed seeding goes on with: the one it recorded, else one it made before it could record it. */
async function demoAgent(base, recordedId) {
  if (recordedId != null) {
    const res = await fetch(`${base}/api/agents/${recordedId}`);
    if (res.status === 404) return { gone: true };
    if (!res.ok) throw new Error(`reading the demo agent answered ${res.status}`);
    return { agent: await res.json() };
  }
  const { agents } = await send("listing the agents", `${base}/api/agents`);
  if (agents.length === 0) return { agent: null };
  const made = agents.find((a) => a.name === DEMO_AGENT_NAME);
  return made ? { agent: made } : { gone: true };
}

/**
 * Seeds the demo agent, or finishes one a crash or failure interrupted: every step can run again
 * (an article already there is a duplicate, a pair already there is refused, a finished run is
 * kept). `hold(stage)` lets a test stop it where it likes; the marker goes once the agent is whole.
 */
export async function seedDemo({ base, demoDir, dataDir, log, hold = async () => {} }) {
  try {
    await waitForApp(base);
    const found = await demoAgent(base, readDemoSeed(dataDir)?.agent_id);
    if (found.gone) {
      log("the demo agent is gone or other agents are there: not creating it");
      fs.rmSync(markerPath(dataDir), { force: true });
      return;
    }
    const agent =
      found.agent ??
      (await send("creating the agent", `${base}/api/agents`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: DEMO_AGENT_NAME, tools: ["document_search"] }),
      }));
    writeDemoSeed(dataDir, { agent_id: agent.id });
    await hold("agent created");
    const form = new FormData();
    for (const name of demoArticles(demoDir)) {
      form.append("files", new Blob([fs.readFileSync(path.join(demoDir, name))]), name);
    }
    const { documents } = await send("uploading the demo articles", `${base}/api/agents/${agent.id}/documents`, {
      method: "POST",
      body: form,
    });
    const notReady = documents.filter((d) => d.status !== "ready");
    if (notReady.length > 0)
      throw new Error(`the demo articles were not all indexed: ${notReady.map((d) => `${d.filename}: ${d.message}`).join(" ")}`);
    const pairs = await send("importing the demo pairs", `${base}/api/agents/${agent.id}/pairs`, {
      method: "POST",
      headers: { "content-type": "text/csv" },
      body: fs.readFileSync(path.join(demoDir, "pairs.csv"), "utf8"),
    });
    const { runs } = await send("listing the demo evaluations", `${base}/api/agents/${agent.id}/evals`);
    const run =
      runs.find((r) => r.status === "done") ??
      (await send("the demo evaluation", `${base}/api/agents/${agent.id}/evals`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ k: DEMO_EVAL_K }),
      }));
    fs.rmSync(markerPath(dataDir), { force: true });
    log(
      `demo agent "${agent.name}" (id ${agent.id}) ready with ${documents.length} articles, ${pairs.total} labeled pairs and evaluation run #${run.run_id}; set KB_DEMO=0 to skip this`,
    );
  } catch (err) {
    // Health stops saying "starting"; the next start finishes the agent.
    const owed = readDemoSeed(dataDir);
    if (owed) writeDemoSeed(dataDir, { ...owed, failed: err.message });
    throw err;
  }
}
