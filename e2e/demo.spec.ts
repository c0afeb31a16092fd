import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseCsv } from "../lib/evaluation/pair-files";
import { expect, test } from "./fixtures";

// The demo agent is seeded once, on the first start, by scripts/demo-seed.mjs (KB_DEMO=1 in the config).
const PAIRS = parseCsv(fs.readFileSync("demo/pairs.csv", "utf8"));
const MISS = "back up our tickets every night";

test("the demo agent has labeled pairs, a finished run and a miss to diagnose on the first start", async ({ page }) => {
  let agentId = 0;
  // Seeding runs just after start-up: wait until its evaluation run is there.
  await expect(async () => {
    const { agents } = await (await page.request.get("/api/agents")).json();
    agentId = agents.find((a: { name: string }) => a.name === "Support demo")?.id;
    expect(agentId).toBeTruthy();
    const { runs } = await (await page.request.get(`/api/agents/${agentId}/evals`)).json();
    expect(runs.map((r: { status: string }) => r.status)).toEqual(["done"]);
  }).toPass({ timeout: 60_000 });

  await page.goto(`/agents/${agentId}/eval/pairs`);
  await expect(page.getByRole("heading", { name: `${PAIRS.length} labeled pairs` })).toBeVisible();
  expect(PAIRS.length).toBeGreaterThanOrEqual(12);

  await page.goto(`/agents/${agentId}/eval`);
  const headline = page.getByRole("region", { name: /^Run #\d+$/ });
  await expect(headline.getByText("Recall@3", { exact: true })).toBeVisible();
  await expect(headline.getByText(/^\d+(\.\d)?%$/)).toBeVisible();
  await expect(page.getByRole("note").filter({ hasText: "1 unanswerable pair:" })).toBeVisible();
  await expect(page.getByText(`${PAIRS.length - 1} answerable pairs and 1 unanswerable pair show`)).toBeVisible();
  await expect(page.getByText("Distance: lower is closer.").first()).toBeVisible();
  const table = page.getByRole("table", { name: "Result of every pair at k = 3" });
  await expect(table.getByRole("row")).toHaveCount(PAIRS.length + 1);
  const miss = table.getByRole("row", { name: new RegExp(MISS) });
  await expect(miss.getByText("Miss", { exact: true })).toBeVisible();
  await page.screenshot({ path: "e2e/screenshots/demo-dashboard.png", fullPage: true });

  // The miss opens in the inspector with its diagnosis: the rank, the top_k it needs and how far it is.
  await miss.getByRole("link", { name: `Open “${MISS}” in the inspector` }).click();
  const diagnosis = page.getByRole("status").filter({ hasText: "data-export.md" });
  await expect(diagnosis).toContainText(
    /Missed: data-export\.md first appears at rank (\d+), \d\.\d{4} farther than the 3rd result; it would need top_k ≥ \1\./,
  );
  await expect(page.getByRole("region", { name: "Word weights" })).toBeVisible();
  await page.screenshot({ path: "e2e/screenshots/demo-miss.png", fullPage: true });
});

// A second first start, its seeding held by the launcher just after the demo agent is made
// (`--hold-demo-seed`, released by SIGUSR2): the window in which a search would find nothing.
const HELD_PORT = Number(process.env.E2E_DEMO_PORT ?? 3151);

test("health says starting while the demo agent is seeded, and the first search after ok finds the SLA article", async () => {
  test.setTimeout(300_000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "kb-demo-start-"));
  // The word-vector cache the spec run's app already built: converting it again takes ~20 s.
  const shared = process.env.E2E_DATA_DIR && path.join(process.env.E2E_DATA_DIR, "cache");
  if (shared && fs.existsSync(shared)) fs.symlinkSync(shared, path.join(dataDir, "cache"));
  const base = `http://127.0.0.1:${HELD_PORT}`;
  const launcher = spawn(process.execPath, ["scripts/start.mjs", "--hold-demo-seed"], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, KB_DEMO: "1", NEXT_TELEMETRY_DISABLED: "1", PORT: String(HELD_PORT), DATA_DIR: dataDir, ADMIN_PASSWORD: "" },
  });
  const exited = new Promise((r) => launcher.once("exit", r));
  let output = "";
  const held = new Promise<void>((resolve) =>
    launcher.stdout!.on("data", (d) => {
      output += d;
      if (output.includes("demo seeding held")) resolve();
    }),
  );
  launcher.stderr!.on("data", (d) => (output += d));
  let stopPolling = false;
  const healthStatus = () =>
    fetch(`${base}/api/health`, { signal: AbortSignal.timeout(10_000) }).then(
      (r) => r.status,
      () => 0,
    );
  // What `npm start`'s users and Playwright do: ask health until it answers 200.
  const healthy = (async () => {
    while (!stopPolling) {
      if ((await healthStatus()) === 200) return;
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  try {
    const first = await Promise.race([held.then(() => "held"), healthy.then(() => "healthy")]);
    expect(first, output).toBe("held");
    const during = await fetch(`${base}/api/health`);
    expect(during.status).toBe(503);
    expect(await during.json()).toMatchObject({ ok: false, status: "starting" });
    const { agents } = await (await fetch(`${base}/api/agents`)).json();
    const id = agents.find((a: { name: string }) => a.name === "Support demo")?.id;
    expect(id).toBeTruthy();

    launcher.kill("SIGUSR2");
    await healthy;
    const res = await fetch(`${base}/agents/${id}/documents/search`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: "what is the SLA for support", top_k: 3 }),
    });
    expect(res.status).toBe(200);
    expect((await res.json()).results[0].filename).toBe("support-sla.md");
  } finally {
    stopPolling = true;
    launcher.kill("SIGTERM");
    await exited;
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
