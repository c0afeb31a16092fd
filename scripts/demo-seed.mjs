// Creates the demo agent through the app's own API, so it is indexed exactly like an upload, then
// gives it labeled pairs and one finished evaluation run: every page has something to show.
import fs from "node:fs";
import path from "node:path";

/** The k the demo's evaluation runs at; demo/pairs.csv has a pair that misses at it. */
export const DEMO_EVAL_K = 3;

/** The articles of the demo directory, in name order; pairs.csv there is the labeled pairs. */
export const demoArticles = (dir) => fs.readdirSync(dir).filter((name) => name.endsWith(".md")).sort();

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

export async function seedDemo(base, demoDir, log) {
  await waitForApp(base);
  const { agents } = await (await fetch(`${base}/api/agents`)).json();
  if (agents.length > 0) return;
  const agent = await send("creating the agent", `${base}/api/agents`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "Support demo", tools: ["document_search"] }),
  });
  const form = new FormData();
  for (const name of demoArticles(demoDir)) {
    form.append("files", new Blob([fs.readFileSync(path.join(demoDir, name))]), name);
  }
  const { documents } = await send("uploading the demo articles", `${base}/api/agents/${agent.id}/documents`, { method: "POST", body: form });
  const pairs = await send("importing the demo pairs", `${base}/api/agents/${agent.id}/pairs`, {
    method: "POST",
    headers: { "content-type": "text/csv" },
    body: fs.readFileSync(path.join(demoDir, "pairs.csv"), "utf8"),
  });
  const run = await send("the demo evaluation", `${base}/api/agents/${agent.id}/evals`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ k: DEMO_EVAL_K }),
  });
  log(
    `demo agent "${agent.name}" (id ${agent.id}) created with ${documents.length} articles, ${pairs.accepted} labeled pairs and evaluation run #${run.run_id}; set KB_DEMO=0 to skip this`,
  );
}
