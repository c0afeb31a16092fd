import { expect, test } from "@playwright/test";

test("the demo agent is there on first start and finds the SLA article", async ({ page, request }) => {
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "Agents" })).toBeVisible();
  // The demo agent is created through the API just after start-up.
  await expect(async () => {
    await page.reload();
    await expect(page.getByRole("link", { name: "Support demo" })).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 60_000 });
  await page.getByRole("link", { name: "Support demo" }).click();
  await expect(page.getByRole("heading", { name: "Support demo" })).toBeVisible();
  await expect(page.getByRole("cell", { name: "support-sla.md", exact: true })).toBeVisible();

  await page.getByLabel("Query").fill("support SLA");
  await page.getByRole("button", { name: "Search" }).click();
  const rows = page.getByRole("table").filter({ hasText: "cosine distance" }).getByRole("row");
  await expect(rows.nth(1)).toContainText("support-sla.md");
  await expect(page.getByText("cosine distance, lower is better")).toBeVisible();
  await page.screenshot({ path: "e2e/screenshots/agent.png", fullPage: true });

  const res = await request.post("/agents/1/documents/search", { data: { query: "support SLA", top_k: 3 } });
  expect(res.status()).toBe(200);
  const body = await res.json();
  expect(body.results).toHaveLength(3);
  expect(body.results[0].filename).toBe("support-sla.md");
});

test("creates an agent, uploads a file and a bad file, and searches", async ({ page }) => {
  const name = `E2E agent ${Date.now()}`;
  await page.goto("/");
  await page.getByLabel("New agent name").fill(name);
  await page.getByRole("button", { name: "Create agent" }).click();
  await expect(page.getByRole("heading", { name })).toBeVisible();

  await page.getByLabel(/^Files/).setInputFiles([
    { name: "shipping.txt", mimeType: "text/plain", buffer: Buffer.from("Orders ship within two business days from our warehouse.") },
    { name: "photo.txt", mimeType: "text/plain", buffer: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]) },
  ]);
  await page.getByRole("button", { name: "Upload and index" }).click();
  const status = page.locator("#upload-status");
  await expect(status).toContainText("1 of 2 files are in the knowledge base.");
  await expect(status).toContainText(/shipping\.txt: indexed/);
  await expect(status).toContainText(/photo\.txt: rejected/);
  await expect(page.getByRole("cell", { name: "shipping.txt", exact: true })).toBeVisible();

  await page.getByLabel("Query").fill("when do orders ship");
  await page.getByRole("button", { name: "Search" }).click();
  await expect(page.getByRole("cell", { name: "Orders ship within two business days from our warehouse." })).toBeVisible();

  page.once("dialog", (d) => d.accept());
  await page.getByRole("button", { name: "Delete shipping.txt" }).click();
  await expect(page.getByText("No documents yet.")).toBeVisible();
});
