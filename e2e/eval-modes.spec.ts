import { expect, test, uploadThroughApi } from "./fixtures";

// One short chunk each. Only the card reader article names the code E-4411.
const ARTICLES = {
  "terminal-codes.md":
    "# Card reader codes\n\nE-4411: the card reader lost its connection; restart the reader and wait for the green light. E-2090: the receipt printer is out of paper.\n",
  "declined-cards.md":
    "# Declined cards\n\nWhen a bank declines a card payment, the checkout asks the customer for another card. Most declined payments clear within a day.\n",
  "shipping.md": "# Shipping\n\nOrders ship within two business days from our warehouse in Leeds. Express delivery arrives the next day.\n",
  "returns.md":
    "# Returns\n\nYou can send an item back within 60 days. We email a prepaid return label; refunds follow once the parcel arrives.\n",
  "password-reset.md": "# Password reset\n\nUse the forgot password link on the sign-in page; the reset email link works for one hour.\n",
};

// At k = 1 keyword ranks the code's article first where vector puts the declined-cards article above it,
// and only vector finds the paraphrase, which shares no word with its article.
const CSV = [
  "query,expected",
  "E-4411 on a card payment,terminal-codes.md",
  "forgotten login,password-reset.md",
  "the bank refused my card,declined-cards.md",
  "how fast are orders shipped,shipping.md",
  "sending goods back,returns.md",
].join("\n");

test("compares vector, keyword and hybrid on the same pairs, shows where they disagree, and switches the agent's mode", async ({
  page,
  agent,
}) => {
  test.setTimeout(120_000);
  await uploadThroughApi(page, agent.id, ARTICLES);
  const imported = await page.request.post(`/api/agents/${agent.id}/pairs`, { headers: { "content-type": "text/csv" }, data: CSV });
  expect(await imported.json()).toMatchObject({ accepted: 5, rejected: [] });

  await page.goto(`/agents/${agent.id}/eval`);
  await page.getByLabel("k (hit when ranked at most k)").fill("1");
  await page.getByRole("button", { name: "Compare vector, keyword and hybrid" }).click();

  const table = page.getByRole("table", { name: "Recall and MRR per retrieval mode" });
  await expect(table.getByRole("row")).toHaveCount(4, { timeout: 60_000 });
  await expect(page.getByText(/^Compared vector, keyword and hybrid: runs #\d+, #\d+, #\d+\.$/)).toBeVisible();
  await expect(page.getByText(/ranked by hybrid/)).toBeVisible();
  const vectorRow = table.getByRole("row", { name: /^vector/ });
  await expect(vectorRow).toContainText("agent's mode");
  await expect(vectorRow.getByRole("button", { name: "Use this mode" })).toHaveCount(0);
  // Every figure depends on this agent's chunks alone (bm25 counts word rarity per agent).
  // At k = 1 each mode misses one pair; at k = 3 only keyword still misses the paraphrase.
  const figures = (mode: string) => table.getByRole("row", { name: new RegExp(`^${mode}`) }).getByRole("cell");
  for (const [mode, atOne, atThree, mrr] of [
    ["vector", "80%", "100%", "0.900"],
    ["keyword", "80%", "80%", "0.800"],
    ["hybrid", "80%", "100%", "0.900"],
  ]) {
    await expect(figures(mode).nth(1), mode).toHaveText(atOne);
    await expect(figures(mode).nth(2), mode).toHaveText(atThree);
    await expect(figures(mode).nth(5), mode).toHaveText(mrr);
  }
  await expect(page.getByRole("img", { name: /Recall@k per retrieval mode/ }).locator("circle")).toHaveCount(60);

  const disagreements = page.getByRole("table", { name: /Pairs hit in one mode and missed in another at k = 1/ });
  await expect(disagreements.getByRole("row")).toHaveCount(3);
  // The agent's mode (vector) misses the code first; keyword finds it, and hybrid, where the code's
  // article and the declined-cards one tie (ranks 2 + 1 against 1 + 2), keeps vector's order.
  const code = disagreements.getByRole("row").nth(1);
  await expect(code).toContainText(/E-4411 on a card payment\s*terminal-codes\.md\s*2\s*Miss\s*1\s*Hit\s*2\s*Miss/);
  await expect(disagreements.getByRole("row").nth(2)).toContainText(
    /forgotten login\s*password-reset\.md\s*1\s*Hit\s*not found\s*Miss\s*1\s*Hit/,
  );
  await expect(code.getByRole("link", { name: "Open “E-4411 on a card payment” in the inspector ranked by vector" })).toHaveAttribute(
    "href",
    /\/search\?q=E-4411\+on\+a\+card\+payment&k=1&expected=\d+&mode=vector$/,
  );
  await page.screenshot({ path: "e2e/screenshots/eval-modes.png", fullPage: true });

  await table
    .getByRole("row", { name: /^keyword/ })
    .getByRole("button", { name: "Use this mode" })
    .click();
  await expect(page.getByText("The agent now searches by keyword.")).toBeVisible();
  await expect(table.getByRole("row", { name: /^keyword/ })).toContainText("agent's mode");
  await expect(vectorRow.getByRole("button", { name: "Use this mode" })).toBeVisible();
  const saved = await page.request.get(`/api/agents/${agent.id}`);
  expect(await saved.json()).toMatchObject({ retrieval_mode: "keyword" });
  // The run button now ranks by the agent's new mode.
  await expect(page.getByText(/ranked by keyword \(the agent's mode\)/)).toBeVisible();
});
