import { ARTICLES, expect, test, uploadThroughApi } from "./fixtures";

const MORE = {
  "tracking.txt": "Tracking. Each parcel gets a tracking number by email as soon as the courier scans it.",
  "gift-cards.md": "Gift cards never expire and can be spent on anything in the shop, including sale items.",
};
const ON_TOPIC = "when do orders ship";
const OFF_TOPIC = "which volcano erupted in iceland last winter";

test("asks from the inspector, refuses past the no-match cut, and lists the agent's refusals", async ({ page, agent }) => {
  await uploadThroughApi(page, agent.id, { ...ARTICLES, ...MORE });

  // Answered: with no chat model the answer quotes the chunks and cites them.
  await page.goto(`/agents/${agent.id}/search`);
  await page.getByRole("searchbox", { name: "Query" }).fill(ON_TOPIC);
  await expect(page.getByRole("table", { name: "Search results" }).locator("caption")).toContainText("3 results");
  const panel = page.getByRole("region", { name: "Ask: what the agent would answer" });
  await panel.getByRole("button", { name: "Ask" }).click();
  await expect(panel.getByText("Orders ship within two business days")).toBeVisible();
  await expect(panel.getByText("Quoted from the chunks (no chat model configured)")).toBeVisible();
  const citation = panel.getByRole("list", { name: "Citations" }).getByRole("link", { name: "shipping.md #0" });
  await expect(citation).toHaveAttribute("href", new RegExp(`^/agents/${agent.id}/documents/\\d+$`));
  const graded = panel.getByRole("table", { name: "Graded chunks" });
  await expect(graded.getByRole("row")).toHaveCount(4);
  await expect(graded.getByRole("row", { name: /shipping\.md #0/ }).getByRole("cell", { name: "relevant", exact: true })).toBeVisible();
  await page.screenshot({ path: "e2e/screenshots/ask.png", fullPage: true });

  // A cut just below the off-topic question's closest chunk leaves it nothing to answer from.
  const inspected = await page.request.post(`/api/agents/${agent.id}/inspect`, { data: { query: OFF_TOPIC, top_k: 1 } });
  expect(inspected.status()).toBe(200);
  const closest = ((await inspected.json()).results as { score: number }[])[0].score;
  const cut = Number((closest - 0.0005).toFixed(4));
  expect(cut).toBeGreaterThan(0);
  expect((await page.request.patch(`/api/agents/${agent.id}`, { data: { max_distance: cut } })).status()).toBe(200);

  await page.goto(`/agents/${agent.id}/search`);
  await page.getByRole("searchbox", { name: "Query" }).fill(OFF_TOPIC);
  await expect(page.getByText(/The agent's search returns no results for this query/)).toBeVisible();
  await panel.getByRole("button", { name: "Ask" }).click();
  await expect(panel.getByText("Refused at retrieval (no_match): no chunk is within the no-match cut.")).toBeVisible();
  await expect(panel.getByText("pick the expected document above")).toBeVisible();
  await expect(panel.getByRole("table", { name: "Graded chunks" })).toHaveCount(0);
  // With an expected document the refusal leads to the miss diagnosis.
  await page.getByRole("combobox", { name: "Expected document (why did it miss?)" }).selectOption({ label: "shipping.md" });
  const diagnosis = page.getByRole("status").filter({ hasText: /Missed: shipping\.md is ranked \d+, but its distance/ });
  await expect(diagnosis).toBeVisible();
  await panel.getByRole("button", { name: "Was the right chunk even retrieved? See the diagnosis" }).click();
  await expect(diagnosis).toBeInViewport();

  // The inspector's try is not the agent's: the documents page lists no refusal yet.
  await page.goto(`/agents/${agent.id}`);
  await expect(page.getByRole("heading", { name: "Documents (4)" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Questions the agent refused" })).toHaveCount(0);

  const asked = await page.request.post(`/api/agents/${agent.id}/ask`, { data: { question: OFF_TOPIC, top_k: 3 } });
  expect(asked.status()).toBe(200);
  expect(await asked.json()).toMatchObject({ refused: true, reason: "no_match", answer: null });

  await page.goto(`/agents/${agent.id}`);
  const refusals = page.getByRole("region", { name: "Questions the agent refused" });
  const item = refusals.getByRole("listitem").filter({ hasText: OFF_TOPIC });
  await expect(item).toContainText("no_match");
  await item.getByRole("link", { name: /^Inspect/ }).click();
  await expect(page).toHaveURL(new RegExp(`/agents/${agent.id}/search\\?q=${encodeURIComponent(OFF_TOPIC).replace(/%20/g, "\\+")}&k=3$`));
  await expect(page.getByRole("searchbox", { name: "Query" })).toHaveValue(OFF_TOPIC);
  await expect(page.getByText(/The agent's search returns no results for this query/)).toBeVisible();

  expect((await page.request.patch(`/api/agents/${agent.id}`, { data: { max_distance: null } })).status()).toBe(200);
});
