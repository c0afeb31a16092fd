import fs from "node:fs";
import path from "node:path";
import { expect, test, uploadThroughApi } from "./fixtures";

const DEMO = ["support-sla.md", "refund-policy.md", "billing-invoices.md", "data-export.md"];
const demo = Object.fromEntries(DEMO.map((f) => [f, fs.readFileSync(path.join("demo", f), "utf8")]));

// The last row is labeled wrong on purpose, so the run has a miss to diagnose.
const CSV = [
  "query,expected,note",
  "support SLA first response,support-sla.md,",
  "full refund within 30 days,refund-policy.md,",
  "export conversations and attachments,data-export.md,",
  "download invoices as PDF,support-sla.md,deliberately wrong",
  "lunch menu,nowhere.md,",
].join("\n");

test("imports a CSV, runs an evaluation, shows the curve and the table, and opens a miss in the inspector", async ({ page, agent }) => {
  const docs = await uploadThroughApi(page, agent.id, demo);
  const slaId = docs.find((d) => d.filename === "support-sla.md")!.document_id;

  await page.goto(`/agents/${agent.id}/eval`);
  await expect(page.getByText("No finished evaluation yet.")).toBeVisible();
  await page.getByRole("link", { name: "adding or importing labeled pairs" }).click();

  await page.getByLabel("Pairs file (.csv, .jsonl)").setInputFiles({ name: "pairs.csv", mimeType: "text/csv", buffer: Buffer.from(CSV) });
  await expect(page.getByText("pairs.csv", { exact: true })).toBeVisible();
  await page.screenshot({ path: "e2e/screenshots/import-pairs.png", fullPage: true });
  await page.getByRole("button", { name: "Import" }).click();
  const status = page.locator("#import-status");
  await expect(status).toContainText("4 rows accepted, 1 row rejected.");
  await expect(page.getByText("pairs.csv", { exact: true })).toHaveCount(0);
  await expect(status.getByRole("table", { name: "Rejected rows" }).getByRole("row").nth(1)).toContainText(
    /6\s*lunch menu\s*nowhere\.md\s*unknown document/,
  );
  await expect(page.getByRole("heading", { name: "4 labeled pairs" })).toBeVisible();

  await page.getByRole("link", { name: "Dashboard" }).click();
  await page.getByLabel("k (hit when ranked at most k)").fill("1");
  await page.getByRole("button", { name: "Run evaluation" }).click();
  await expect(page.getByRole("heading", { name: /^Run #\d+$/ })).toBeVisible();
  await expect(page).toHaveURL(/\?run=\d+&k=1$/);

  // Three of the four pairs find their document first: recall@1 is 75%.
  const headline = page.getByRole("region", { name: /^Run #\d+$/ });
  await expect(headline.getByText("Recall@1", { exact: true })).toBeVisible();
  await expect(headline.getByText("75%", { exact: true })).toBeVisible();
  await expect(page.getByText("3 of 4 pairs have their expected document")).toBeVisible();
  const curve = page.getByRole("img", { name: /Recall@k curve/ });
  await expect(curve).toBeVisible();
  await expect(curve.locator("circle")).toHaveCount(20);

  const table = page.getByRole("table", { name: "Result of every pair at k = 1" });
  await expect(table.getByRole("row")).toHaveCount(5);
  // Misses come first.
  const miss = table.getByRole("row").nth(1);
  await expect(miss).toContainText("download invoices as PDF");
  await expect(miss.getByText("Miss", { exact: true })).toBeVisible();
  await expect(table.getByText("Hit", { exact: true })).toHaveCount(3);

  await table.getByRole("button", { name: /Query/ }).click();
  await expect(table.getByRole("columnheader", { name: /Query/ })).toHaveAttribute("aria-sort", "ascending");
  await expect(table.getByRole("row").nth(1)).toContainText("download invoices as PDF");
  await expect(table.getByRole("row").nth(4)).toContainText("support SLA first response");

  await page.getByLabel("Show results at k =").selectOption("5");
  await expect(page.getByRole("table", { name: "Result of every pair at k = 5" })).toBeVisible();
  await page.getByLabel("Show results at k =").selectOption("1");
  await expect(table).toBeVisible();
  await page.screenshot({ path: "e2e/screenshots/eval-dashboard.png", fullPage: true });

  await table.getByRole("link", { name: "Open “download invoices as PDF” in the inspector" }).click();
  await expect(page).toHaveURL(`/agents/${agent.id}/search?q=download+invoices+as+PDF&k=1&expected=${slaId}`);
  await expect(page.getByLabel("Query")).toHaveValue("download invoices as PDF");
});

test("adds, edits and deletes pairs, and compares two runs with regressions first", async ({ page, agent }) => {
  await uploadThroughApi(page, agent.id, demo);
  await page.goto(`/agents/${agent.id}/eval/pairs`);
  for (const [query, expected] of [
    ["refund after 30 days", "refund-policy.md"],
    ["how fast does support answer", "support-sla.md"],
    ["spare pair", "data-export.md"],
  ]) {
    await page.getByLabel("Query").fill(query);
    await page.getByLabel("Expected document").selectOption(expected);
    await page.getByRole("button", { name: "Add pair" }).click();
    await expect(page.getByText(`Added "${query}".`)).toBeVisible();
  }
  await expect(page.getByRole("heading", { name: "3 labeled pairs" })).toBeVisible();

  // A pair that already exists is refused, and the form still holds what was typed.
  await page.getByLabel("Query").fill("refund after 30 days");
  await page.getByLabel("Expected document").selectOption("refund-policy.md");
  await page.getByLabel("Note (optional)").fill("asked twice");
  await page.getByRole("button", { name: "Add pair" }).click();
  const duplicate = 'The pair "refund after 30 days" -> refund-policy.md already exists.';
  await expect(page.getByLabel("Query")).toHaveAccessibleDescription(duplicate);
  await expect(page.getByLabel("Query")).toHaveValue("refund after 30 days");
  await expect(page.getByLabel("Expected document")).toHaveValue("refund-policy.md");
  await expect(page.getByLabel("Note (optional)")).toHaveValue("asked twice");
  await expect(page.getByRole("heading", { name: "3 labeled pairs" })).toBeVisible();

  const pairs = page.getByRole("table", { name: "Labeled pairs" });
  // So does an edit that would make a pair the same as another one.
  await pairs.getByRole("button", { name: "Edit “spare pair”" }).click();
  await pairs.getByLabel("Query").fill("refund after 30 days");
  await pairs.getByLabel("Expected document").selectOption("refund-policy.md");
  await pairs.getByRole("button", { name: "Save" }).click();
  await expect(pairs.getByLabel("Query")).toHaveAccessibleDescription(duplicate);
  await expect(pairs.getByLabel("Query")).toHaveValue("refund after 30 days");
  await expect(pairs.getByLabel("Expected document")).toHaveValue("refund-policy.md");
  await pairs.getByRole("button", { name: "Cancel" }).click();
  await expect(pairs.getByRole("button", { name: "Edit “spare pair”" })).toBeVisible();

  await pairs.getByRole("button", { name: "Edit “how fast does support answer”" }).click();
  await pairs.getByLabel("Note").fill("from a real ticket");
  await pairs.getByRole("button", { name: "Save" }).click();
  await expect(pairs.getByRole("row", { name: /how fast does support answer/ })).toContainText("from a real ticket");
  page.once("dialog", (d) => d.accept());
  await pairs.getByRole("button", { name: "Delete “spare pair”" }).click();
  await expect(page.getByRole("heading", { name: "2 labeled pairs" })).toBeVisible();

  await page.goto(`/agents/${agent.id}/eval`);
  await page.getByLabel("k (hit when ranked at most k)").fill("1");
  await page.getByRole("button", { name: "Run evaluation" }).click();
  await expect(page.getByText("2 of 2 pairs have their expected document")).toBeVisible();

  // A new article that answers the refund question better pushes the labeled one down: a regression.
  await uploadThroughApi(page, agent.id, {
    "refund-faq.md": "Refund after 30 days? A refund after 30 days is possible: refund after 30 days on request.",
  });
  await page.getByRole("button", { name: "Run evaluation" }).click();
  await expect(page.getByText("1 of 2 pairs have their expected document as the first result")).toBeVisible();
  await expect(page.getByRole("img", { name: /Run history trend/ })).toBeVisible();
  const comparison = page.getByRole("region", { name: /Run #\d+ → run #\d+ at k = 1/ });
  await expect(comparison).toContainText("1 regression (hit before, miss now)");
  await page.screenshot({ path: "e2e/screenshots/eval-compare.png", fullPage: true });
  await expect(comparison.getByRole("row").nth(1)).toContainText(/Regression\s*refund after 30 days\s*refund-policy\.md\s*1\s*2/);
  await expect(page.getByRole("img", { name: /Run history trend/ }).getByText("100%", { exact: true })).toBeVisible();

  // Runs picked the wrong way round are compared oldest first: still a regression, not a fix.
  const [older, newer] = (
    await page
      .getByLabel("Earlier run")
      .locator("option")
      .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value))
  ).map(Number);
  const compare = page.getByRole("form", { name: "Compare two runs" });
  await compare.getByLabel("Earlier run").selectOption(String(newer));
  await compare.getByLabel("Later run").selectOption(String(older));
  await compare.getByRole("button", { name: "Compare" }).click();
  await expect(page).toHaveURL(new RegExp(`base=${newer}&head=${older}`));
  const reordered = page.getByRole("region", { name: `Run #${older} → run #${newer} at k = 1` });
  await expect(reordered.getByRole("note")).toHaveText(`Run #${newer} is newer than run #${older}, so it is compared as the later run.`);
  await expect(reordered).toContainText("1 regression (hit before, miss now)");
  await expect(reordered.getByRole("row").nth(1)).toContainText(/Regression\s*refund after 30 days\s*refund-policy\.md\s*1\s*2/);
  await expect(compare.getByLabel("Earlier run")).toHaveValue(String(older));
});
