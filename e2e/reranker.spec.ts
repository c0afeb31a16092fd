import { expect, test, uploadThroughApi } from "./fixtures";

// The rerank stage as a team uses it: MMR chosen on the settings page and seen in the inspector,
// the learned reranker trained from the agent's labels with its cross-validation shown, and the
// Recall tab's comparison of the same pairs without and with the agent's reranker.

const ARTICLES = {
  "shipping.md": "# Shipping\n\nOrders ship within two business days from our warehouse in Leeds. Express delivery arrives the next day.\n",
  "returns.md":
    "# Returns\n\nYou can send an item back within 60 days. We email a prepaid return label; refunds follow once the parcel arrives.\n",
  "password-reset.md": "# Password reset\n\nUse the forgot password link on the sign-in page; the reset email link works for one hour.\n",
  "declined-cards.md":
    "# Declined cards\n\nWhen a bank declines a card payment, the checkout asks the customer for another card. Most declined payments clear within a day.\n",
  "gift-cards.md":
    "# Gift cards\n\nGift cards never expire and can be spent online or in any shop. A lost gift card can be replaced with its receipt.\n",
  "warranty.md":
    "# Warranty\n\nEvery appliance has a two year warranty. A faulty appliance is repaired or replaced free of charge within that time.\n",
  "invoices.md":
    "# Invoices\n\nInvoices are emailed as PDF files when an order ships. Company details can be added to an invoice from your account.\n",
};

// Two questions per article: more than the ten labeled questions training needs.
const PAIRS = [
  ["how fast do orders ship", "shipping.md"],
  ["is there next day delivery", "shipping.md"],
  ["how long do I have to return an item", "returns.md"],
  ["when will my refund arrive", "returns.md"],
  ["I forgot my password", "password-reset.md"],
  ["the reset email link expired", "password-reset.md"],
  ["my bank declined the payment", "declined-cards.md"],
  ["the card payment was refused at checkout", "declined-cards.md"],
  ["do gift cards expire", "gift-cards.md"],
  ["I lost my gift card", "gift-cards.md"],
  ["my appliance broke after a year", "warranty.md"],
  ["how long is the warranty", "warranty.md"],
  ["where do I find my invoice", "invoices.md"],
  ["add company details to an invoice", "invoices.md"],
].map(([query, expected]) => ({ query, expected }));

// Questions nothing answers: they calibrate the cut on the reranker's score, and are no training labels.
const UNANSWERABLE = ["recipe for banana bread", "who won the football world cup", "best hiking trails in Norway"].map((query) => ({
  query,
  answerable: false,
}));

test("chooses MMR and sees it in the inspector, trains the learned reranker, and compares recall without and with it", async ({
  page,
  agent,
}) => {
  test.setTimeout(180_000);
  await uploadThroughApi(page, agent.id, ARTICLES);
  const imported = await page.request.post(`/api/agents/${agent.id}/pairs`, { data: [...PAIRS, ...UNANSWERABLE] });
  expect(await imported.json()).toMatchObject({ accepted: PAIRS.length + UNANSWERABLE.length });

  // Without a reranker the Recall tab offers no comparison with one.
  await page.goto(`/agents/${agent.id}/eval`);
  await expect(page.getByRole("button", { name: "Compare vector, keyword and hybrid" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Compare with and without the reranker" })).toHaveCount(0);

  // Settings: learned cannot be chosen before a model has won; MMR can, with its lambda.
  await page.goto(`/agents/${agent.id}/settings`);
  const form = page.getByRole("form", { name: "Reranker settings" });
  const select = form.getByLabel("Reranker", { exact: true });
  await expect(select).toHaveValue("none");
  await expect(form.getByLabel("MMR lambda")).toHaveCount(0);
  await select.selectOption("learned");
  await form.getByRole("button", { name: "Save reranker" }).click();
  await expect(form.getByText(/No learned reranker has won its cross-validation for this agent yet/)).toBeVisible();
  expect((await (await page.request.get(`/api/agents/${agent.id}`)).json()).reranker).toBe("none");

  await select.selectOption("mmr");
  await expect(form.getByLabel("MMR lambda")).toHaveValue("0.7");
  await form.getByRole("button", { name: "Save reranker" }).click();
  await expect(form.getByText("Saved: the agent's results are reranked by mmr.")).toBeVisible();
  expect(await (await page.request.get(`/api/agents/${agent.id}`)).json()).toMatchObject({ reranker: "mmr", rerank_candidates: 50 });

  // The inspector: reranked by MMR, each result with its reranker score, its place before and what moved it.
  await page.goto(`/agents/${agent.id}/search?q=${encodeURIComponent("when will my refund arrive")}&k=3`);
  await expect(page.getByText("Reranked by mmr λ=0.7: the first 50 of the vector order.", { exact: false })).toBeVisible();
  const results = page.getByRole("table", { name: "Search results" });
  await expect(results.locator("caption")).toContainText("reranked by mmr λ=0.7");
  const rows = results.getByRole("row");
  await expect(rows).toHaveCount(4);
  for (let i = 1; i <= 3; i++) {
    const cell = rows.nth(i).getByRole("cell").nth(2);
    await expect(cell).toContainText(/^\d+\.\d{3}was #\d+/);
    await expect(cell.getByRole("list", { name: "What moved it" })).toContainText(/^[+−]\d+\.\d\d marginal relevance$/);
  }

  // Training from the settings page: the cross-validation, and why the model is or is not switched on.
  await page.goto(`/agents/${agent.id}/settings`);
  await expect(page.getByText("No learned model trained yet.")).toBeVisible();
  const cvTable = page.getByRole("table", { name: /^Cross-validation of learned v\d+ on \d+ held-out questions, 5 folds$/ });
  await expect(cvTable).toHaveCount(0);
  await page.getByRole("button", { name: "Train learned reranker" }).click();
  await expect(cvTable).toBeVisible({ timeout: 60_000 });
  const version = /learned v(\d+)/.exec((await cvTable.locator("caption").textContent())!)![1];
  await expect(cvTable).toHaveAccessibleName(new RegExp(`on ${PAIRS.length} held-out questions`));
  const cvRows = cvTable.getByRole("row");
  await expect(cvRows).toHaveCount(3);
  await expect(cvRows.nth(1)).toContainText(/^without reranker\d+(\.\d)?%\d+(\.\d)?%\d+(\.\d)?%\d\.\d{3}$/);
  await expect(cvRows.nth(2)).toContainText(new RegExp(`^with learned v${version}\\d+(\\.\\d)?%\\d+(\\.\\d)?%\\d+(\\.\\d)?%\\d\\.\\d{3}$`));
  const reason = page.getByText(new RegExp(`on ${PAIRS.length} held-out questions, recall@3 \\d\\.\\d{3} → \\d\\.\\d{3}, MRR`));
  await expect(reason).toBeVisible();
  await expect(reason).toContainText(/^(Switched on: it wins|Not switched on: it does not beat)/);
  await expect(reason).toContainText(/(The agent now ranks with learned v\d+ \(\d+ labels\)|The agent's reranker is unchanged)\.$/);
  await expect(page.getByText(new RegExp(`^Newest model: learned v${version} \\(${PAIRS.length} labels\\), trained `))).toBeVisible();

  // The agent now ranks with the learned model when it won, else still with MMR.
  const after = (await (await page.request.get(`/api/agents/${agent.id}/reranker`)).json()) as {
    reranker: string;
    latest: { wins: boolean };
  };
  expect(after.reranker).toBe(after.latest.wins ? "learned" : "mmr");
  await expect(page.getByRole("form", { name: "Reranker settings" }).getByLabel("Reranker", { exact: true })).toHaveValue(after.reranker);
  const rerankedBy = after.reranker === "learned" ? `learned v${version} (${PAIRS.length} labels)` : "mmr λ=0.7";

  // Recall: the same pairs without and with the agent's reranker, one run each.
  await page.goto(`/agents/${agent.id}/eval`);
  await page.getByRole("button", { name: "Compare with and without the reranker" }).click();
  await expect(page.getByText(/^Compared without and with the reranker: runs #\d+, #\d+\.$/)).toBeVisible({ timeout: 60_000 });
  const [without, withIt] = /runs #(\d+), #(\d+)/
    .exec((await page.getByText(/^Compared without and with the reranker/).textContent())!)!
    .slice(1)
    .map(Number);
  const runs = page.getByRole("table", { name: "Evaluation runs, newest first" });
  const run = (id: number) => runs.getByRole("row").filter({ has: page.getByRole("link", { name: `#${id}`, exact: true }) });
  await expect(run(without)).toContainText("vector · reranker none");
  await expect(run(withIt)).toContainText(`vector · reranker ${rerankedBy}`);
  await expect(page.getByText(`Run #${without}: vector · reranker none. Run #${withIt}: vector · reranker ${rerankedBy}.`)).toBeVisible();

  // The reranked run calibrates a cut on the reranker's score, applied for that reranker's version.
  await page.goto(`/agents/${agent.id}/eval?run=${withIt}&k=3`);
  const panel = page.getByRole("region", { name: "No-match cut" });
  await expect(panel).toContainText(`This run was reranked by ${rerankedBy}, so the cut is on its score`);
  await expect(panel.getByRole("img", { name: /^No-match cut calibration at k = 3/ })).toBeVisible();
  const calibration = (await (await page.request.get(`/api/agents/${agent.id}/evals/${withIt}/calibration?k=3`)).json()) as {
    score: string;
    reranker_version: string;
    recommended: { cut: number | null };
  };
  expect(calibration).toMatchObject({ score: "rerank", reranker_version: rerankedBy });
  if (calibration.recommended.cut === null) {
    await expect(panel.getByText("No cut does best on these pairs, so there is nothing to apply.")).toBeVisible();
  } else {
    const apply = panel.getByRole("button", { name: `Apply cut ${calibration.recommended.cut}` });
    await apply.click();
    await expect(
      panel.getByText(`Applied: the agent's search now drops results that ${rerankedBy} scores below ${calibration.recommended.cut}.`, {
        exact: false,
      }),
    ).toBeVisible();
    expect(await (await page.request.get(`/api/agents/${agent.id}`)).json()).toMatchObject({
      rerank_cut: calibration.recommended.cut,
      rerank_cut_version: rerankedBy,
    });
  }
  // The run without the reranker still calibrates the distance cut.
  await page.goto(`/agents/${agent.id}/eval?run=${without}&k=3`);
  await expect(page.getByRole("region", { name: "No-match cut" })).toContainText("A cut drops results farther than a distance");
});
