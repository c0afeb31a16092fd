import { HELP, PAIRS } from "../test/help-centre";
import { expect, test, uploadThroughApi } from "./fixtures";

// The fix loop end to end: a miss diagnosed in the inspector, a suggested fix staged in a draft,
// its impact read, the draft published, and the pair passing on the Recall tab.
test("diagnose a miss, stage a suggested fix, read its impact, publish, and see the pair pass", async ({ page, agent }) => {
  test.setTimeout(180_000);
  await uploadThroughApi(page, agent.id, HELP, { chunk_size: "140", chunk_overlap: "0" });
  const added = await page.request.post(`/api/agents/${agent.id}/pairs`, { data: PAIRS.map(([query, expected]) => ({ query, expected })) });
  expect((await added.json()).accepted).toBe(PAIRS.length);
  const run = await page.request.post(`/api/agents/${agent.id}/evals`, { data: { k: 3 } });
  expect(run.status()).toBe(201);
  const missed = ((await run.json()).pairs as { query: string; expected: string; rank: number | null }[]).find(
    (p) => p.rank === null || p.rank > 3,
  )!;
  expect(missed).toBeDefined();

  // The Recall tab's miss, opened in the inspector: the diagnosis says it missed.
  await page.goto(`/agents/${agent.id}/eval`);
  await page.getByRole("link", { name: `Open “${missed.query}” in the inspector` }).click();
  await expect(page.getByRole("status").filter({ hasText: /^Missed:/ })).toBeVisible();

  // Suggested fixes, best first; the first rescues the pair and is staged in a new draft.
  await page.getByRole("button", { name: "Suggest fixes" }).click();
  const fixes = page.getByRole("list", { name: "Fixes, best first" });
  await expect(fixes).toBeVisible({ timeout: 60_000 });
  const best = fixes.getByTestId("suggested-fix").first();
  await expect(best.getByText("rescues", { exact: true })).toBeVisible();
  await best.getByRole("button", { name: "Stage in a new draft" }).click();
  await best.getByRole("link", { name: /^Staged in draft \d+: preview and publish it$/ }).click();

  // The draft's impact: the pair rescued; then published.
  await expect(page).toHaveURL(new RegExp(`/agents/${agent.id}/drafts#draft-\\d+$`));
  const draft = page.getByRole("region", { name: /^Draft / });
  await draft.getByRole("button", { name: "Preview impact" }).click();
  const impact = draft.getByTestId("impact");
  await expect(impact).toContainText(/recall@3 [\d.]+% → [\d.]+%/, { timeout: 60_000 });
  await expect(impact).toContainText(/[1-9]\d* rescued, \d+ broken/);
  await expect(impact.getByRole("table", { name: "Pairs whose rank changes" })).toContainText(missed.query);
  // The same question in the inspector, ranked through the draft: retrieved there, not yet served.
  await draft.getByRole("link", { name: "Inspect through this draft" }).click();
  await page.getByRole("searchbox", { name: "Query" }).fill(missed.query);
  await page.getByRole("combobox", { name: /^Expected document/ }).selectOption({ label: missed.expected });
  await expect(page.getByRole("status").filter({ hasText: /^Retrieved:/ })).toBeVisible({ timeout: 30_000 });
  await page.getByRole("combobox", { name: /^Rank as/ }).selectOption({ label: "What the agent serves" });
  await expect(page.getByRole("status").filter({ hasText: /^Missed:/ })).toBeVisible({ timeout: 30_000 });
  await page.goBack();
  await draft.getByRole("button", { name: "Publish" }).click();
  await expect(page.getByText("No drafts yet.")).toBeVisible();

  // The Recall tab: a new run, and the pair is a hit.
  await page.getByRole("navigation", { name: "Agent sections" }).getByRole("link", { name: "Recall" }).click();
  await page.getByRole("button", { name: "Run evaluation" }).click();
  await expect(page).toHaveURL(/\?run=\d+/);
  const row = page
    .getByRole("table", { name: /^Result of every pair at k = 3$/ })
    .getByRole("row")
    .filter({ hasText: missed.query });
  await expect(row.getByText("Hit", { exact: true })).toBeVisible({ timeout: 60_000 });
});
