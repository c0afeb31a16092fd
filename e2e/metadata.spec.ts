import type { Page } from "@playwright/test";
import { expect, test, uploadThroughApi } from "./fixtures";

// Metadata and filters as a team uses them: set at upload and in bulk, the browser filtered by
// it, a logged call inspected with the filter it was made with, and an evaluation of pairs
// ranked under their filters.

const ROUTER = "---\nproduct: router\n---\n# Router reset\n\nHold the reset button on the router for ten seconds until the lights blink.\n";
const MODEM =
  "---\nproduct: modem\n---\n# Modem reset\n\nPress the reset pin on the back of the modem for ten seconds, then wait for the line light.\n";
const SWITCH = "Switch reset. Unplug the switch, hold the mode button and plug it back in to reset the switch to factory settings.\n";

async function search(page: Page, agentId: number, query: string, filter?: unknown) {
  const res = await page.request.post(`/api/agents/${agentId}/documents/search`, { data: { query, top_k: 3, filter } });
  expect(res.status()).toBe(200);
  return (await res.json()) as { results: { filename: string }[]; filter_matched_documents?: number };
}

test("metadata set at upload and in bulk, the browser filtered, a logged call inspected with its filter, filtered pairs evaluated", async ({
  page,
  agent,
}) => {
  test.setTimeout(120_000);
  // At upload: the form's metadata for every file, with each file's front matter.
  await page.goto(`/agents/${agent.id}`);
  await page.getByLabel("Files").setInputFiles([
    { name: "router.md", mimeType: "text/markdown", buffer: Buffer.from(ROUTER) },
    { name: "modem.md", mimeType: "text/markdown", buffer: Buffer.from(MODEM) },
  ]);
  await page.getByLabel("Metadata for every file (JSON, optional)").fill('{"locale": "de"}');
  await page.getByRole("button", { name: "Upload and index" }).click();
  await expect(page.getByRole("heading", { name: "Upload finished" })).toBeVisible();
  await uploadThroughApi(page, agent.id, { "switch.txt": SWITCH }, { metadata: JSON.stringify({ product: "switch", locale: "en" }) });

  // The browser: each document's metadata, and facets that filter the list.
  await page.reload();
  const table = page.getByRole("table", { name: "Documents" });
  const row = (name: string) => table.getByRole("row").filter({ hasText: name });
  await expect(row("router.md").getByRole("list", { name: "Metadata" })).toHaveText(/product: router\s*locale: de/);
  const facets = page.getByRole("group", { name: "Filter by metadata" });
  await facets.getByRole("button", { name: "router · 1" }).click();
  await expect(page.getByText("The filter matches 1 document.")).toBeVisible();
  await expect(table.getByRole("row")).toHaveCount(2);
  await expect(row("router.md")).toBeVisible();
  await facets.getByRole("button", { name: "router · 1" }).click();
  await facets.getByRole("button", { name: "de · 2" }).click();
  await expect(page.getByText("The filter matches 2 documents.")).toBeVisible();

  // In bulk: the two German articles get a firmware key.
  await page.getByRole("checkbox", { name: "Select all shown" }).check();
  const bulk = page.getByRole("group", { name: "Set metadata on the selected documents" });
  await bulk.getByLabel("Key").fill("firmware");
  await bulk.getByLabel("Value").fill("3");
  await bulk.getByRole("button", { name: "Set key" }).click();
  await expect(bulk.getByText('Set "firmware" on 2 documents.')).toBeVisible();
  await expect(row("modem.md").getByRole("list", { name: "Metadata" })).toContainText("firmware: 3");
  await page.getByLabel("Metadata filter").fill('{"firmware": {"$gte": 3}}');
  await expect(page.getByText("The filter matches 2 documents.")).toBeVisible();
  await expect(table.getByRole("row").filter({ hasText: "switch.txt" })).toHaveCount(0);
  await page.screenshot({ path: "e2e/screenshots/metadata-browser.png", fullPage: true });

  // The agent's call with a filter: logged with it, and inspected with it in one click.
  const found = await search(page, agent.id, "how do I reset it", { product: "modem" });
  expect(found.filter_matched_documents).toBe(1);
  expect(found.results.every((r) => r.filename === "modem.md")).toBe(true);
  await page.goto(`/agents/${agent.id}/questions`);
  const question = page.getByRole("table", { name: "The agent's questions" }).getByRole("row").filter({ hasText: "how do I reset it" });
  await expect(question).toContainText('filter {"product":"modem"}');
  await question.getByRole("link", { name: /^Inspect/ }).click();
  await expect(page.getByLabel(/^Metadata filter/)).toHaveValue('{"product":"modem"}');
  await expect(page.getByText("Ranked among the 1 document the filter matches.")).toBeVisible();
  const results = page.getByRole("table", { name: /results/i });
  await expect(results).toContainText("modem.md");
  await expect(results).not.toContainText("router.md");

  // Filtered pairs: each ranked among the documents its filter matches.
  const pairs = await page.request.post(`/api/agents/${agent.id}/pairs`, {
    data: [
      { query: "hold the reset button for ten seconds", expected: "modem.md", filter: { product: "modem" } },
      { query: "reset to factory settings", expected: "router.md", filter: { product: "switch" } },
    ],
  });
  expect((await pairs.json()).accepted).toBe(2);
  await page.goto(`/agents/${agent.id}/eval/pairs`);
  await expect(page.getByText('filter {"product":"modem"}')).toBeVisible();
  await page.goto(`/agents/${agent.id}/eval`);
  await page.getByRole("button", { name: "Run evaluation" }).click();
  await expect(page).toHaveURL(/\?run=\d+/);
  const resultsTable = page.getByRole("table", { name: /^Result of every pair at k = / });
  const pairRow = (text: string) => resultsTable.getByRole("row").filter({ hasText: text });
  await expect(pairRow("hold the reset button").getByText("Hit", { exact: true })).toBeVisible({ timeout: 60_000 });
  // Its filter leaves the expected document out: a miss whatever the ranking.
  await expect(pairRow("reset to factory settings").getByText("Hit", { exact: true })).toHaveCount(0);
});
