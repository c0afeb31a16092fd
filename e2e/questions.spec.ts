import type { Page } from "@playwright/test";
import { expect, test, uploadThroughApi } from "./fixtures";

const DOCS = {
  "shipping.md":
    "# Shipping\n\nOrders ship within two business days from our warehouse in Leeds. Tracking numbers are emailed when an order ships.\n",
  "delivery.md":
    "# Delivery options\n\nExpress delivery arrives the next day. Standard delivery takes three to five days once an order has shipped.\n",
  "returns.txt":
    "Returns. You can send an item back within 60 days. We email a prepaid return label; refunds follow once the parcel arrives.\n",
  "password.md": "# Password reset\n\nUse the forgot password link on the sign-in page; the reset email link works for one hour.\n",
};
const PASSWORD = "How do I reset my password?";
const SHIP = "When do orders ship?";
const RETURN = "How do I send an item back?";
const LUNCH = "Is there a lunch menu in the canteen?";
const GIFT = "Do you sell gift cards?";
// Two wordings of one question: the second is grouped under the first.
const ASKED = [PASSWORD, "how can I reset my password", SHIP, RETURN, LUNCH, GIFT];

/** The agent's own search, as its tool calls it: what the Questions tab lists. */
async function agentSearch(page: Page, agentId: number, query: string) {
  const res = await page.request.post(`/api/agents/${agentId}/documents/search`, { data: { query, top_k: 3 } });
  expect(res.status()).toBe(200);
}

test("the agent's questions: grouped, labeled into pairs the Recall tab runs, a gap a new upload answers, a replay after a replace", async ({
  page,
  agent,
}) => {
  test.setTimeout(120_000);
  const docs = await uploadThroughApi(page, agent.id, DOCS);
  const shippingId = docs.find((d) => d.filename === "shipping.md")!.document_id;

  // Nothing asked yet: the tab says why it is empty.
  await page.goto(`/agents/${agent.id}`);
  await page.getByRole("navigation", { name: "Agent sections" }).getByRole("link", { name: "Questions" }).click();
  await expect(page).toHaveURL(`/agents/${agent.id}/questions`);
  await expect(page.getByText(/^The agent has not asked anything yet/)).toBeVisible();

  for (const q of ASKED) await agentSearch(page, agent.id, q);
  await page.reload();
  await expect(page.getByRole("heading", { name: "5 questions" })).toBeVisible();
  const table = page.getByRole("table", { name: "The agent's questions" });
  const row = (text: string) => table.getByRole("row").filter({ has: page.getByText(text, { exact: true }) });
  await expect(table.getByRole("row")).toHaveCount(6);
  // Most asked first: the password question, asked in two wordings, leads.
  await expect(table.getByRole("row").nth(1)).toContainText(PASSWORD);
  await expect(row(PASSWORD)).toContainText("2 wordings");
  await expect(row(PASSWORD).getByRole("cell").nth(1)).toHaveText("2");
  await expect(table.getByText("how can I reset my password")).toHaveCount(0);
  await expect(row(SHIP).getByRole("cell").nth(3)).toHaveText(/^0\.\d{4}$/);
  await expect(row(SHIP).getByRole("cell").nth(5)).toContainText("shipping.md");

  // Three labeled and one unanswerable, each in one click from its row.
  for (const [text, doc] of [
    [PASSWORD, "password.md"],
    [SHIP, "shipping.md"],
    [RETURN, "returns.txt"],
  ]) {
    await row(text)
      .getByRole("combobox", { name: `Document that answers “${text}”` })
      .selectOption(doc);
    await row(text)
      .getByRole("button", { name: `Label “${text}”` })
      .click();
    await expect(
      page.getByRole("status").filter({ hasText: `“${text}”: labeled with ${doc}; it is a labeled pair on the Recall tab now.` }),
    ).toBeVisible();
    await expect(row(text).getByRole("cell").nth(6)).toHaveText(`Labeled${doc}`);
  }
  // A label needs its document: said beside the select, nothing changed.
  await row(LUNCH)
    .getByRole("button", { name: `Label “${LUNCH}”` })
    .click();
  await expect(row(LUNCH).getByRole("combobox", { name: `Document that answers “${LUNCH}”` })).toHaveAccessibleDescription(
    "Choose the document that answers it, then Label.",
  );
  await row(LUNCH)
    .getByRole("button", { name: `Unanswerable “${LUNCH}”` })
    .click();
  await expect(row(LUNCH).getByRole("cell").nth(6)).toHaveText("Unanswerable");
  await row(GIFT)
    .getByRole("button", { name: `Gap “${GIFT}”` })
    .click();
  await expect(row(GIFT).getByRole("cell").nth(6)).toHaveText("Gap");
  // A labeled question offers only Reopen now.
  await expect(row(SHIP).getByRole("button")).toHaveText([`Reopen “${SHIP}”`]);

  // The filters live in the URL.
  const filters = page.getByRole("search", { name: "Filter questions" });
  await filters.getByLabel("Status").selectOption("labeled");
  await filters.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(/\?status=labeled/);
  await expect(page.getByRole("heading", { name: "3 questions" })).toBeVisible();
  await expect(table.getByRole("row")).toHaveCount(4);
  await filters.getByRole("link", { name: "Clear filters" }).click();
  await expect(page.getByRole("heading", { name: "5 questions" })).toBeVisible();
  await expect(filters.getByLabel("Status")).toHaveValue("");
  await page.screenshot({ path: "e2e/screenshots/questions.png", fullPage: true });

  // "Inspect" opens the question in the inspector, with its labeled document marked.
  await row(SHIP)
    .getByRole("link", { name: `Inspect “${SHIP}”` })
    .click();
  await expect(page).toHaveURL(`/agents/${agent.id}/search?q=When+do+orders+ship%3F&k=3&expected=${shippingId}`);
  await expect(page.getByLabel("Query")).toHaveValue(SHIP);

  // The Recall tab runs the pairs the triage made: three answerable, one unanswerable.
  await page.getByRole("navigation", { name: "Agent sections" }).getByRole("link", { name: "Recall" }).click();
  await expect(page.getByRole("link", { name: "Labeled pairs (4)" })).toBeVisible();
  await page.getByRole("button", { name: "Run evaluation" }).click();
  const headline = page.getByRole("region", { name: /^Run #\d+$/ });
  await expect(headline.getByText("3 of 3 pairs have their expected document in the top 3 results.")).toBeVisible();
  await expect(headline.getByRole("note")).toContainText("1 unanswerable pair: no cut was set, so none was refused.");
  await expect(headline.getByText("Every labeled pair of this agent.")).toBeVisible();

  // The gap, then a new article that answers it.
  await page.goto(`/agents/${agent.id}/questions`);
  const gaps = page.getByRole("table", { name: "Gaps" });
  const gap = gaps.getByRole("row").filter({ hasText: GIFT });
  await expect(gaps.getByRole("row")).toHaveCount(2);
  await expect(gap.getByRole("cell")).toHaveText([
    GIFT,
    "1",
    "marked as a gap",
    /^returns\.txt 0\.\d{4}$/,
    "not yet",
    `Inspect gap “${GIFT}”`,
  ]);
  await expect(page.getByRole("link", { name: "Download CSV" })).toHaveAttribute("href", `/api/agents/${agent.id}/gaps?format=csv`);
  await uploadThroughApi(page, agent.id, {
    "gift-cards.md": "# Gift cards\n\nWe sell gift cards from 10 to 200 pounds. A gift card never expires.\n",
  });
  await page.reload();
  // Without a no-match cut nothing says how near answers: the new article is only nearer now.
  await expect(gap.getByRole("cell").nth(4)).toHaveText(/^not judged: gift-cards\.md 0\.\d{4} is nearer now/);
  // With a cut it answers (the inspector's try is not one of the agent's questions).
  const tried = await (await page.request.post(`/api/agents/${agent.id}/inspect`, { data: { query: GIFT, top_k: 1 } })).json();
  expect(tried.results[0].filename).toBe("gift-cards.md");
  expect((await page.request.patch(`/api/agents/${agent.id}`, { data: { max_distance: tried.results[0].score + 0.01 } })).status()).toBe(
    200,
  );
  await page.reload();
  await expect(gap.getByRole("cell").nth(4)).toHaveText(/^answered gift-cards\.md 0\.\d{4}$/);
  await expect(page.getByText("1 gap, 1 answered by a document added since.")).toBeVisible();
  expect((await page.request.patch(`/api/agents/${agent.id}`, { data: { max_distance: null } })).status()).toBe(200);

  // A new version of shipping.md no longer answers the shipping question: the replay shows another document first.
  await uploadThroughApi(page, agent.id, {
    "shipping.md": "# Warehouse tours\n\nOur Leeds warehouse offers guided tours for school groups on Fridays.\n",
  });
  const replay = page.getByRole("region", { name: "Replay" });
  await expect(replay.getByRole("spinbutton", { name: /Replay the last/ })).toHaveValue("100");
  await replay.getByRole("button", { name: "Replay" }).click();
  // The gift card question changed its first document too (to the new article).
  await expect(replay.getByText("2 of 6 questions changed their first document; 0 newly refused; 0 newly answered.")).toBeVisible();
  const changed = replay.getByRole("table", { name: "Questions whose results changed" });
  const shipped = changed.getByRole("row").filter({ hasText: SHIP });
  await expect(shipped.getByRole("cell").nth(1)).toHaveText(/^shipping\.md 0\.\d{4}$/);
  await expect(shipped.getByRole("cell").nth(2)).toHaveText(/^delivery\.md 0\.\d{4}$/);
  await expect(shipped.getByRole("cell").nth(4)).toContainText("shipping.md");
  await expect(shipped.getByRole("cell").nth(5)).toHaveText(/^\+0\.\d{4}$/);
  // Those whose first document changed come first.
  await expect(changed.getByRole("row").nth(1)).toContainText(/When do orders ship\?|Do you sell gift cards\?/);
  await expect(changed.getByRole("row").nth(2)).toContainText(/When do orders ship\?|Do you sell gift cards\?/);
  await page.screenshot({ path: "e2e/screenshots/questions-replay.png", fullPage: true });
});
