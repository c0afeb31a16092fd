import { ARTICLES, expect, test, uploadThroughApi } from "./fixtures";

const FILLER = Object.fromEntries(
  ["billing", "security", "mobile app", "integrations", "exports", "teams"].map((topic) => [
    `${topic.replace(" ", "-")}.txt`,
    Array.from({ length: 4 }, (_, i) => `${topic} note ${i + 1}: general guidance about ${topic} settings and options.`).join(" "),
  ]),
);

test("searches, moves the slider, diagnoses a miss, saves a labeled pair and re-runs a recent query", async ({ page, agent }) => {
  const docs = await uploadThroughApi(page, agent.id, { ...ARTICLES, ...FILLER }, { chunk_size: "120", chunk_overlap: "20" });
  const total = docs.reduce((n, d) => n + d.chunk_count, 0);
  expect(total).toBeGreaterThan(12);

  await page.goto(`/agents/${agent.id}/search`);
  await expect(page.getByText("Type a query to see the chunks")).toBeVisible();
  await expect(page.getByText(/Query words count by how rare they are among this agent's chunks/)).toBeVisible();
  await page.getByLabel("Query").fill("when do orders ship");
  const caption = page.getByRole("table", { name: "Search results" }).locator("caption");
  await expect(caption).toContainText("3 results");
  await expect(caption).toContainText("cosine distance, lower is better");
  await expect(page.getByRole("table", { name: "Search results" }).getByRole("row").nth(1)).toContainText("shipping.md");
  await expect(page.getByRole("table", { name: "Search results" }).getByRole("row").nth(1).locator("mark").first()).toBeVisible();
  // Each content word of the query, with how much it counts among this agent's chunks, highest first.
  const weights = page.getByRole("region", { name: "Word weights" });
  const inChunks = weights.getByRole("list", { name: "Words in the chunks" }).getByTestId("query-word");
  await expect(inChunks).toHaveText([
    new RegExp(`^(orders|ship) ×\\d+\\.\\d\\d in [1-9]\\d* of ${total}$`),
    new RegExp(`^(orders|ship) ×\\d+\\.\\d\\d in [1-9]\\d* of ${total}$`),
  ]);
  const factors = (await inChunks.allTextContents()).map((t) => Number(t.match(/×(\d+\.\d+)/)![1]));
  expect(factors).toEqual([...factors].sort((a, b) => b - a));
  await expect(weights.getByRole("list", { name: /Not in any chunk/ })).toHaveCount(0);
  // A word no chunk has gets the largest factor, but it is listed apart: it can only match by meaning.
  await page.getByLabel("Query").fill("when do orders ship by zeppelin");
  const missing = weights.getByRole("list", { name: "Not in any chunk: can only match by meaning (or a similar spelling)" });
  await expect(missing.getByTestId("query-word")).toHaveText(["zeppelin"]);
  await expect(inChunks).toHaveCount(2);
  await page.screenshot({ path: "e2e/screenshots/word-weights.png", clip: (await weights.boundingBox())! });
  await page.getByLabel("Query").fill("when do orders ship");
  await expect(missing).toHaveCount(0);

  await page.getByRole("slider", { name: "top_k" }).fill("10");
  await expect(caption).toContainText("10 results");
  await expect(page.getByRole("table", { name: "Search results" }).getByRole("row")).toHaveCount(11);
  await expect(page).toHaveURL(/q=when\+do\+orders\+ship.*k=10/);

  // An expected document far down the ranking: the page says where it is and what top_k reaches it.
  await page.getByLabel("Expected document (why did it miss?)").selectOption({ label: "returns.txt" });
  const diagnosis = page.getByRole("status").filter({ hasText: "returns.txt" });
  await expect(diagnosis).toBeVisible();
  const rank = Number((await page.getByTestId("best-rank").textContent())!.split(" ")[0]);
  expect(rank).toBeGreaterThan(1);
  await expect(page.getByTestId("needed-k")).toHaveText(`≥ ${rank}`);
  const k = Math.max(rank - 1, 1);
  await page.getByRole("slider", { name: "top_k" }).fill(String(k));
  // The miss says how much farther the expected chunk is than the last result top_k keeps.
  await expect(diagnosis).toContainText(`Missed: returns.txt first appears at rank ${rank}, `);
  const gap = (
    /first appears at rank \d+, (\d\.\d{4}) farther than the (\d+)(st|nd|rd|th) result; it would need top_k ≥ (\d+)\./.exec(
      (await diagnosis.textContent())!,
    ) ?? []
  ).slice(1);
  const figures = diagnosis.getByRole("definition");
  const [own, kth] = [Number(await figures.nth(1).textContent()), Number(await figures.nth(2).textContent())];
  expect(gap.slice(1)).toEqual([String(k), gap[2], String(rank)]);
  // The gap is computed before rounding; the two figures shown are rounded to 4 places.
  expect(Math.abs(Number(gap[0]) - (own - kth))).toBeLessThanOrEqual(0.00015);
  expect(own - kth).toBeGreaterThanOrEqual(0);
  await expect(page.getByText("Distance: lower is closer.")).toHaveCount(1);
  await page.screenshot({ path: "e2e/screenshots/inspector-miss.png", fullPage: true });
  await page.getByRole("slider", { name: "top_k" }).fill(String(rank));
  await expect(diagnosis).toContainText(`Retrieved: returns.txt is at rank ${rank}`);
  await expect(page).toHaveURL(new RegExp(`expected=${docs.find((d) => d.filename === "returns.txt")!.document_id}`));
  await expect(page.getByRole("img", { name: /Distances of the first/ })).toBeVisible();
  await page.screenshot({ path: "e2e/screenshots/inspector.png", fullPage: true });

  await page.getByRole("button", { name: "Save as labeled pair" }).click();
  await expect(page.getByText("Saved as a labeled pair")).toBeVisible();
  await page.getByRole("button", { name: "Save as labeled pair" }).click();
  await expect(page.getByText(/already exists/)).toBeVisible();

  // The shared link restores the same state.
  const url = page.url();
  await page.goto(url);
  await expect(page.getByLabel("Query")).toHaveValue("when do orders ship");
  await expect(page.getByTestId("best-rank")).toContainText(String(rank));

  const recent = page.getByRole("region", { name: "Recent queries" });
  await page.getByLabel("Query").fill("refund label");
  await expect(caption).toContainText("results");
  await expect(recent.getByRole("button", { name: /refund label/ })).toBeVisible();
  await recent
    .getByRole("button", { name: /when do orders ship/ })
    .first()
    .click();
  await expect(page.getByLabel("Query")).toHaveValue("when do orders ship");
  await expect(page.getByRole("table", { name: "Search results" }).getByRole("row").nth(1)).toContainText("shipping.md");
});

test("a deleted document is gone from search", async ({ page, agent }) => {
  await uploadThroughApi(page, agent.id, ARTICLES);
  await page.goto(`/agents/${agent.id}/search?q=${encodeURIComponent("when do orders ship")}&k=5`);
  await expect(page.getByRole("table", { name: "Search results" }).getByRole("link", { name: "shipping.md" })).toBeVisible();

  await page.getByRole("link", { name: "Documents" }).click();
  page.once("dialog", (d) => {
    expect(d.message()).toContain('Delete "shipping.md"');
    void d.accept();
  });
  await page.getByRole("button", { name: "Delete shipping.md" }).click();
  await expect(page.getByRole("link", { name: "shipping.md" })).toHaveCount(0);

  await page.goto(`/agents/${agent.id}/search?q=${encodeURIComponent("when do orders ship")}&k=5`);
  await expect(page.getByRole("table", { name: "Search results" }).locator("caption")).toContainText("1 result ·");
  await expect(page.getByRole("table", { name: "Search results" }).getByRole("link", { name: "shipping.md" })).toHaveCount(0);
});

test("with document_search off the inspector still works and says the agent itself is refused, which the log shows", async ({
  page,
  agent,
}) => {
  await uploadThroughApi(page, agent.id, ARTICLES);
  await page.goto(`/agents/${agent.id}/settings`);
  await page.getByLabel(/document_search/).uncheck();
  await page.getByRole("button", { name: "Save settings" }).click();
  await expect(page.getByText("Saved.")).toBeVisible();
  await expect(page.getByText(/The document_search tool is off/)).toBeVisible();

  // The agent's own call is refused, and logged as a failed call.
  const refused = await page.request.post(`/api/agents/${agent.id}/documents/search`, { data: { query: "parcel refund", top_k: 3 } });
  expect(refused.status()).toBe(403);

  await page.getByRole("link", { name: "Search inspector" }).click();
  await page.getByLabel("Query").fill("when do orders ship");
  await expect(page.getByRole("table", { name: "Search results" }).getByRole("row").nth(1)).toContainText("shipping.md");
  await expect(page.getByText(/the agent itself is refused \(403\) when it searches/)).toBeVisible();
  const recent = page.getByRole("region", { name: "Recent queries" });
  await expect(recent.getByRole("button", { name: /parcel refund.*agent.*failed/ })).toBeVisible();
  await expect(recent.getByRole("button", { name: /when do orders ship.*inspector/ })).toBeVisible();

  // Ten slider stops of one query are one line in Recent queries.
  for (const k of [2, 4, 6, 8]) {
    await page.getByRole("slider", { name: "top_k" }).fill(String(k));
    await expect(page.getByRole("table", { name: "Search results" }).locator("caption")).toContainText(`${Math.min(k, 2)} result`);
  }
  await expect(recent.getByRole("button", { name: /when do orders ship/ })).toHaveCount(1);

  await page.goto(`/agents/${agent.id}/settings`);
  await page.getByLabel(/document_search/).check();
  await page.getByRole("button", { name: "Save settings" }).click();
  await expect(page.getByText("Saved.")).toBeVisible();
  await page.goto(`/agents/${agent.id}/search?q=orders`);
  await expect(page.getByRole("table", { name: "Search results" }).locator("caption")).toContainText("results");
  await expect(page.getByText(/the agent itself is refused/)).toHaveCount(0);
});

test("creates, renames and deletes an agent, with the counts in the confirmation", async ({ page }) => {
  const name = `Lifecycle ${Date.now()}`;
  await page.goto("/");
  await page.getByLabel("New agent name").fill(name);
  await page.getByRole("button", { name: "Create agent" }).click();
  await expect(page.getByRole("heading", { name })).toBeVisible();
  const id = Number(page.url().split("/agents/")[1]);
  await uploadThroughApi(page, id, { "returns.txt": ARTICLES["returns.txt"] });

  await page.getByRole("link", { name: "Settings" }).click();
  await page.getByLabel("Name").fill(`${name} renamed`);
  await page.getByRole("button", { name: "Save settings" }).click();
  await expect(page.getByRole("heading", { name: `${name} renamed` })).toBeVisible();

  // A taken name is refused, and the form still holds what was typed.
  await page.goto("/");
  await page.getByLabel("New agent name").fill(`${name} renamed`);
  await page.getByLabel("document_search tool").uncheck();
  await page.getByRole("button", { name: "Create agent" }).click();
  await expect(page.getByLabel("New agent name")).toHaveAccessibleDescription(`An agent named "${name} renamed" already exists.`);
  await expect(page.getByLabel("New agent name")).toHaveValue(`${name} renamed`);
  await expect(page.getByLabel("document_search tool")).not.toBeChecked();
  await expect(page).toHaveURL(/\/$/);

  await page.goto(`/agents/${id}/settings`);
  page.once("dialog", (d) => {
    expect(d.message()).toContain("1 document and 1 chunk go with it");
    void d.accept();
  });
  await page.getByRole("button", { name: "Delete agent" }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole("link", { name: `${name} renamed` })).toHaveCount(0);
});
