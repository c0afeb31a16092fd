import type { Page } from "@playwright/test";
import { ARTICLES, expect, test, uploadThroughApi } from "./fixtures";

// Three distinct searches: the monitor replays each distinct query once, so the repeat counts once.
const SEARCHES = ["when do orders ship", "how do I send an item back", "express delivery next day", "when do orders ship"];

async function search(page: Page, agentId: number, query: string) {
  const res = await page.request.post(`/api/agents/${agentId}/documents/search`, { data: { query, top_k: 5 } });
  expect(res.status()).toBe(200);
  expect((await res.json()).results.length).toBeGreaterThan(0);
}

test("measures what an agent's searches get of the nearest chunks, and lists it on Index health", async ({ page, agent }) => {
  await uploadThroughApi(page, agent.id, ARTICLES);

  // Before any search there is nothing to replay: the line says so, before and after "Measure now".
  // The figures are on the Settings tab; the Documents tab shows them only when they warn.
  await page.goto(`/agents/${agent.id}/settings`);
  const summary = page.getByRole("region", { name: "Index recall" });
  const line = summary.getByRole("paragraph").first();
  // In a long run the background monitor (it looks every 10 minutes) may have checked the new agent already.
  await expect(line).toHaveText(/^Index recall@10: (not measured yet|no searches logged yet\. Checked .+)\.$/);
  const measure = summary.getByRole("button", { name: "Measure now" });
  await measure.click();
  await expect(summary.getByText("Checked just now: nothing could be measured.")).toBeVisible();
  await expect(line).toHaveText(/^Index recall@10: no searches logged yet\. Checked .+\.$/);
  await expect(measure).toBeEnabled();

  for (const query of SEARCHES) await search(page, agent.id, query);

  // The searches replayed: every one gets all of its nearest chunks, as every chunk is ranked exactly.
  await measure.click();
  await expect(line).toHaveText(
    /^Index recall@10: searches return 100% of the nearest 10 chunks \(ranked exactly\); Chroma's index alone \d+(\.\d)?%, over the 3 latest distinct searches\. Measured .+\.$/,
  );
  await expect(summary.getByText("Measured just now.")).toBeVisible();
  await expect(summary.getByRole("link", { name: /Rebuild/ })).toHaveCount(0);
  await page.screenshot({ path: "e2e/screenshots/index-recall-agent.png", fullPage: true });

  // The figures survive a reload: they are kept, not just shown.
  await page.reload();
  await expect(line).toContainText("searches return 100% of the nearest 10 chunks (ranked exactly)");

  await page.goto("/audit");
  const section = page.getByRole("region", { name: "Index recall@10" });
  await expect(section.getByTestId("exact-ranking-state")).toContainText(
    /^Agents of up to 100,000 chunks \(EXACT_MAX_CHUNKS\) are ranked exactly, every chunk scored; their vectors take [\d.,]+ MB of memory, of the 512 MB allowed \(EXACT_MEMORY_MB\)\./,
  );
  const row = section
    .getByRole("table", { name: "Index recall@10 per agent" })
    .getByRole("row")
    .filter({ has: page.getByRole("link", { name: agent.name, exact: true }) });
  await expect(row.getByRole("cell")).toHaveText([agent.name, "100% (ranked exactly)", /^\d+(\.\d)?%$/, "3", /\d/]);
  // Below INDEX_RECALL_WARN an agent is named in a warning that links to the rebuild; this one is not.
  await expect(section.getByText(/return less than/).filter({ hasText: agent.name })).toHaveCount(0);
  await page.screenshot({ path: "e2e/screenshots/index-recall-audit.png", fullPage: true });

  // The agent's name leads back to its page and its figures.
  await row.getByRole("link", { name: agent.name, exact: true }).click();
  await expect(page.getByRole("heading", { name: agent.name, level: 1 })).toBeVisible();
  // Without a warning the Documents tab leaves the figures to the Settings tab.
  await expect(page.getByRole("heading", { name: /^Documents \(\d+\)$/ })).toBeVisible();
  await expect(summary).toHaveCount(0);
  await page.goto(`/agents/${agent.id}/settings`);
  await expect(line).toContainText("over the 3 latest distinct searches");
});
