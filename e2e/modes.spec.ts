import { ARTICLES, expect, test, uploadThroughApi } from "./fixtures";

// One chunk each. The code E-4411 is in one article only: the keyword ranking puts that article
// first, the vector ranking puts the card-payments article first.
const PAYMENTS = {
  ...ARTICLES,
  "payments.md":
    "Card payments. If your card payment is declined at checkout, check the card number, the expiry date and that your bank allows online payments, then try the payment again.",
  "billing.md":
    "Billing. We charge your card on the first day of each month and email the invoice; a failed charge is retried after three days.",
  "wallets.txt": "Wallets. Pay with Apple Pay or Google Pay at checkout; the wallet uses the card saved in your phone.",
  "scanner-faults.txt":
    "Scanner faults. Code E-4411 means the warehouse scanner lost its connection; restart the scanner and wait for the green light.",
};
const QUERY = "card declined E-4411";

test("ranks a query by vector, keyword or hybrid without changing the agent, and sets the agent's mode", async ({ page, agent }) => {
  const docs = await uploadThroughApi(page, agent.id, PAYMENTS);
  expect(docs.every((d) => d.chunk_count === 1)).toBe(true);

  await page.goto(`/agents/${agent.id}/search`);
  const rankBy = page.getByRole("group", { name: "Rank by" });
  // The agent's own mode is the default.
  await expect(rankBy.getByRole("radio", { name: "Vector" })).toBeChecked();
  await page.getByRole("searchbox", { name: "Query" }).fill(QUERY);
  await page.getByRole("slider", { name: "top_k" }).fill("3");
  const table = page.getByRole("table", { name: "Search results" });
  const firstRow = table.getByRole("row").nth(1);
  await expect(table.locator("caption")).toContainText("3 results");
  await expect(firstRow).toContainText("payments.md");
  await expect(table.getByTestId("rank-breakdown")).toHaveCount(0);

  await rankBy.getByRole("radio", { name: "Keyword" }).check();
  await expect(page.getByText("Ranks this query as keyword without changing the agent's setting (the agent uses vector).")).toBeVisible();
  await expect(table.locator("caption")).toContainText("ranked by keyword");
  await expect(firstRow).toContainText("scanner-faults.txt");
  await expect(firstRow.getByTestId("rank-breakdown")).toHaveText(/^vector #\d+ · \d\.\d{3} \| keyword #1 · bm25 −\d+\.\d\d$/);
  // The code matched by its spelling is marked in the chunk.
  await expect(firstRow.locator("mark", { hasText: "4411" })).toBeVisible();
  await expect(page).toHaveURL(/mode=keyword/);
  expect((await (await page.request.get(`/api/agents/${agent.id}`)).json()).retrieval_mode).toBe("vector");

  await rankBy.getByRole("radio", { name: "Hybrid" }).check();
  await expect(table.locator("caption")).toContainText("ranked by hybrid");
  await expect(table.getByTestId("rank-breakdown")).toHaveText([/\| fused #1$/, /\| fused #2$/, /\| fused #3$/]);
  await expect(page).toHaveURL(/mode=hybrid/);

  // The expected document's place in all three lists, and the side that loses it at top_k 1.
  await rankBy.getByRole("radio", { name: "Keyword" }).check();
  await page.getByLabel("Expected document (why did it miss?)").selectOption({ label: "scanner-faults.txt" });
  await page.getByRole("slider", { name: "top_k" }).fill("1");
  const ranks = page.getByTestId("mode-ranks");
  await expect(ranks).toContainText(/Vector rank ([2-9]|\d\d+) · keyword rank 1 · hybrid rank \d+/);
  const vectorRank = /Vector rank (\d+)/.exec((await ranks.textContent())!)![1];
  await expect(ranks).toContainText(`Keyword rank 1, vector rank ${vectorRank}: the embedding does not see this match.`);
  await expect(page.getByRole("status").filter({ hasText: "scanner-faults.txt" })).toContainText(
    "Retrieved: scanner-faults.txt is at rank 1 of the keyword ranking, within top_k = 1.",
  );
  await page.getByRole("slider", { name: "top_k" }).fill("3");
  await page.screenshot({ path: "e2e/screenshots/inspector-modes.png", fullPage: true });

  // A shared link keeps the mode.
  await page.goto(page.url());
  await expect(rankBy.getByRole("radio", { name: "Keyword" })).toBeChecked();
  await expect(firstRow).toContainText("scanner-faults.txt");

  await page.getByRole("link", { name: "Settings" }).click();
  await page.getByLabel("Retrieval mode").selectOption("hybrid");
  await expect(page.getByText("Both: the vector and keyword rankings fused by reciprocal rank")).toBeVisible();
  await page.getByRole("button", { name: "Save settings" }).click();
  await expect(page.getByText("Saved.")).toBeVisible();
  expect((await (await page.request.get(`/api/agents/${agent.id}`)).json()).retrieval_mode).toBe("hybrid");
  const search = await page.request.post(`/api/agents/${agent.id}/documents/search`, { data: { query: QUERY, top_k: 3 } });
  expect(search.status()).toBe(200);
  const results = (await search.json()).results as { fused_rank?: number }[];
  expect(results.map((r) => r.fused_rank)).toEqual([1, 2, 3]);

  // The inspector now defaults to the agent's new mode.
  await page.goto(`/agents/${agent.id}/search?q=${encodeURIComponent(QUERY)}&k=3`);
  await expect(rankBy.getByRole("radio", { name: "Hybrid" })).toBeChecked();
  await expect(page.getByText("(the agent uses hybrid)")).toBeVisible();
});

test("a settings save keeps the name and tools with the mode, and a failed save keeps the picked mode", async ({ page, agent }) => {
  await page.goto(`/agents/${agent.id}/settings`);
  await expect(page.getByLabel("Retrieval mode")).toHaveValue("vector");
  await page.getByLabel("Retrieval mode").selectOption("keyword");
  await page.getByLabel("Name").fill("   ");
  await page.getByRole("button", { name: "Save settings" }).click();
  await expect(page.getByText("Name is required.")).toBeVisible();
  await expect(page.getByLabel("Retrieval mode")).toHaveValue("keyword");
  expect((await (await page.request.get(`/api/agents/${agent.id}`)).json()).retrieval_mode).toBe("vector");

  await page.getByLabel("Name").fill(`${agent.name} kw`);
  await page.getByRole("button", { name: "Save settings" }).click();
  await expect(page.getByText("Saved.")).toBeVisible();
  await expect(page.getByLabel("Retrieval mode")).toHaveValue("keyword");
  await expect(page.getByText(/^Shared words: chunks ranked by bm25/)).toBeVisible();
  const saved = await (await page.request.get(`/api/agents/${agent.id}`)).json();
  expect(saved).toMatchObject({ name: `${agent.name} kw`, tools: ["document_search"], retrieval_mode: "keyword" });
});
