// Creates the demo agent through the app's own API, so it is indexed exactly like an upload.
import fs from "node:fs";
import path from "node:path";

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

export async function seedDemo(base, articlesDir, log) {
  await waitForApp(base);
  const { agents } = await (await fetch(`${base}/api/agents`)).json();
  if (agents.length > 0) return;
  const created = await fetch(`${base}/api/agents`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "Support demo", tools: ["document_search"] }),
  });
  if (!created.ok) throw new Error(`creating the agent answered ${created.status}`);
  const agent = await created.json();
  const form = new FormData();
  for (const name of fs.readdirSync(articlesDir).sort()) {
    form.append("files", new Blob([fs.readFileSync(path.join(articlesDir, name))]), name);
  }
  const res = await fetch(`${base}/api/agents/${agent.id}/documents`, { method: "POST", body: form });
  if (!res.ok) throw new Error(`uploading the demo articles answered ${res.status}`);
  const { documents } = await res.json();
  log(`demo agent "${agent.name}" (id ${agent.id}) created with ${documents.length} articles; set KB_DEMO=0 to skip this`);
}
