import fs from "node:fs";
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
  await expect(diagnosis).toContainText(/Missed: data-export\.md first appears at rank (\d+), \d\.\d{4} farther than the 3rd result; it would need top_k ≥ \1\./);
  await expect(page.getByRole("region", { name: "Word weights" })).toBeVisible();
  await page.screenshot({ path: "e2e/screenshots/demo-miss.png", fullPage: true });
});
