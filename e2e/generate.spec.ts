import { expect, test, uploadThroughApi } from "./fixtures";

// Short articles with headings and an FAQ-style question line: the offline generator (no chat model
// on the default app) asks the FAQ line first, then the first section heading as a question.
const DOCS = {
  "shipping.md":
    "# Shipping\n\nOrders ship within two business days from our warehouse in Leeds.\n\n## Tracking your parcel\n\nTracking numbers are emailed as soon as an order ships.\n\n## FAQ\n\nCan I change the delivery address after ordering?\n\nYes, until the order has shipped.\n",
  "returns.md":
    "# Returns\n\nYou can send an item back within 60 days of delivery.\n\n## Return labels\n\nWe email a prepaid return label on request.\n\n## FAQ\n\nHow long does a refund take?\n\nRefunds reach your card within 5 to 10 days of the parcel arriving.\n",
  "passwords.md":
    "# Password reset\n\nUse the forgot password link on the sign-in page.\n\n## Reset email\n\nThe reset email link works for one hour.\n\n## FAQ\n\nWhat if the reset email never arrives?\n\nCheck the spam folder, then contact support.\n",
};
const PROPOSED = [
  "Can I change the delivery address after ordering?",
  "How do I track my parcel?",
  "How long does a refund take?",
  "What are the return labels?",
  "What if the reset email never arrives?",
  "What is the reset email?",
];
const ACCEPTED = "How long does a refund take?";
const EDITED_FROM = "How do I track my parcel?";
const EDITED_TO = "where is my parcel tracking number";
const REJECTED = "What is the reset email?";
const IMPORTED = "reset link expired";

test("generated questions offline: reviewed one by one, only the accepted ones count, and a run scores exactly those", async ({
  page,
  agent,
}) => {
  await uploadThroughApi(page, agent.id, DOCS);
  // One pair of another source, so a run over generated pairs only can be told from a run over all.
  const imported = await page.request.post(`/api/agents/${agent.id}/pairs`, { data: [{ query: IMPORTED, expected: "passwords.md" }] });
  expect(imported.status()).toBe(201);

  await page.goto(`/agents/${agent.id}/eval/pairs`);
  const generate = page.getByRole("form", { name: "Generate questions" });
  await expect(generate).toContainText("No chat model is set (OPENAI_CHAT_MODEL), so questions are read from each document's structure");
  await expect(generate.getByRole("radio", { name: "All 3 indexed documents" })).toBeChecked();
  await generate.getByLabel("Questions per document").fill("2");
  await generate.getByRole("button", { name: "Generate questions" }).click();
  await expect(generate.locator("#generate-status")).toHaveText(
    "Proposed 6 questions from the documents' headings, questions and first sentences. Review them below.",
  );

  const proposed = page.getByRole("region", { name: /^Proposed questions/ });
  await expect(proposed.getByRole("heading", { name: "Proposed questions (6)" })).toBeVisible();
  const list = proposed.getByRole("table", { name: "Proposed questions, not counted in runs until accepted" });
  await expect(list.getByRole("textbox", { name: "Question" })).toHaveCount(6);
  for (const [i, query] of PROPOSED.entries()) await expect(list.getByRole("textbox", { name: "Question" }).nth(i)).toHaveValue(query);
  // Each proposal is labeled with the document it was read from.
  await expect(list.getByRole("combobox", { name: `Document expected to answer “${ACCEPTED}”` })).toHaveValue("returns.md");
  // Proposals are not pairs yet: the tab counts the imported pair only.
  const pairsTab = page.getByRole("link", { name: /^Labeled pairs \(\d+\)$/ });
  await expect(pairsTab).toHaveText("Labeled pairs (1)");
  await expect(page.getByRole("heading", { name: "1 labeled pair", exact: true })).toBeVisible();
  await page.screenshot({ path: "e2e/screenshots/generate-proposals.png", fullPage: true });

  const pairs = page.getByRole("table", { name: "Labeled pairs" });
  const proposal = (query: string) => list.getByRole("row").filter({ has: page.getByRole("form", { name: `Accept “${query}”` }) });

  // Accepted as is.
  await proposal(ACCEPTED).getByRole("button", { name: "Accept" }).click();
  await expect(proposed.getByRole("heading", { name: "Proposed questions (5)" })).toBeVisible();
  await expect(pairs.getByRole("row").filter({ hasText: ACCEPTED })).toContainText(/returns\.md.*generated/);

  // Edited, then accepted with the new wording.
  await proposal(EDITED_FROM).getByRole("textbox", { name: "Question" }).fill(EDITED_TO);
  await proposal(EDITED_FROM).getByRole("button", { name: "Accept" }).click();
  await expect(proposed.getByRole("heading", { name: "Proposed questions (4)" })).toBeVisible();
  await expect(pairs.getByRole("row").filter({ hasText: EDITED_TO })).toContainText(/shipping\.md.*generated/);
  await expect(pairs.getByText(EDITED_FROM)).toHaveCount(0);

  // Rejected: gone from the list, and not a pair.
  await proposal(REJECTED)
    .getByRole("button", { name: `Reject “${REJECTED}”` })
    .click();
  await expect(proposed.getByRole("heading", { name: "Proposed questions (3)" })).toBeVisible();
  await expect(list.getByRole("textbox", { name: "Question" })).toHaveCount(3);
  await expect(page.getByRole("form", { name: `Accept “${REJECTED}”` })).toHaveCount(0);
  await expect(pairs.getByText(REJECTED)).toHaveCount(0);

  // Only accepted pairs count: the imported one and the two accepted, not the three still proposed.
  await expect(page.getByRole("heading", { name: "3 labeled pairs" })).toBeVisible();
  await expect(pairsTab).toHaveText("Labeled pairs (3)");
  await expect(pairs.getByRole("row")).toHaveCount(4);

  await page.getByRole("link", { name: "Dashboard" }).click();
  await expect(page).toHaveURL(`/agents/${agent.id}/eval`);
  const launcher = page.getByRole("region", { name: "Run an evaluation" });
  await launcher.getByLabel("k (hit when ranked at most k)").fill("3");
  // Each source's choice says how many accepted pairs it holds.
  await expect(launcher.getByRole("combobox", { name: "Pairs" }).getByRole("option", { name: "generated (accepted) · 2" })).toBeAttached();
  await launcher.getByRole("combobox", { name: "Pairs" }).selectOption("generated");
  await launcher.getByRole("button", { name: "Run evaluation" }).click();
  await expect(page).toHaveURL(/\?run=\d+&k=3$/);
  const runId = Number(new URL(page.url()).searchParams.get("run"));

  // The run scored the two accepted generated pairs: not the imported one, not the proposals.
  const headline = page.getByRole("region", { name: `Run #${runId}` });
  await expect(headline.getByText("Pairs", { exact: true }).locator("..")).toHaveText(/^Pairs2(?!\d)/);
  await expect(headline.getByText("Every accepted pair from the source “generated”.")).toBeVisible();
  const results = page.getByRole("table", { name: "Result of every pair at k = 3" });
  await expect(results.getByRole("row")).toHaveCount(3);
  await expect(results).toContainText(ACCEPTED);
  await expect(results).toContainText(EDITED_TO);
  await expect(results).not.toContainText(IMPORTED);

  const history = page.getByRole("table", { name: "Evaluation runs, newest first" });
  const row = history.getByRole("row").filter({ has: page.getByRole("link", { name: `#${runId}`, exact: true }) });
  await expect(row.getByRole("cell").nth(4)).toHaveText("2generated only");
  // The launcher keeps the source for the next run.
  await expect(launcher.getByRole("combobox", { name: "Pairs" })).toHaveValue("generated");
  await page.screenshot({ path: "e2e/screenshots/generate-run.png", fullPage: true });
});
