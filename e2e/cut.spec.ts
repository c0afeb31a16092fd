import { ARTICLES, expect, test, uploadThroughApi } from "./fixtures";

// One chunk each, so the first four results are four different documents.
const MORE = {
  "warehouse.md": "Our warehouse in Leeds packs orders every weekday morning; couriers collect them in the afternoon.",
  "tracking.txt": "Tracking. Each parcel gets a tracking number by email as soon as the courier scans it.",
  "gift-cards.md": "Gift cards never expire and can be spent on anything in the shop, including sale items.",
  "passwords.txt": "To reset your password, open Account settings and choose Send reset link.",
};
const QUERY = "when do orders ship";

/** The shortest decimal strictly between a and b, so the cut reads as someone would type it. */
function between(a: number, b: number) {
  for (let places = 1; places <= 12; places++) {
    const c = Number(((a + b) / 2).toFixed(places));
    if (c > a && c < b) return c;
  }
  return (a + b) / 2;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

test("a no-match cut marks what the search drops in the inspector and the recall dashboard", async ({ page, agent }) => {
  const docs = await uploadThroughApi(page, agent.id, { ...ARTICLES, ...MORE });
  expect(docs.every((d) => d.chunk_count === 1)).toBe(true);

  const inspected = await page.request.post(`/api/agents/${agent.id}/inspect`, { data: { query: QUERY, top_k: 4 } });
  expect(inspected.status()).toBe(200);
  const top = (await inspected.json()).results as { score: number; filename: string }[];
  expect(top).toHaveLength(4);
  const [, d2, d3, d4] = top.map((r) => r.score);
  expect(d3).toBeGreaterThan(d2);
  const cut = between(d2, d3);
  const patched = await page.request.patch(`/api/agents/${agent.id}`, { data: { max_distance: cut } });
  expect(patched.status()).toBe(200);

  await page.goto(`/agents/${agent.id}/search`);
  await page.getByRole("searchbox", { name: "Query" }).fill(QUERY);
  await page.getByRole("slider", { name: "top_k" }).fill("4");
  const table = page.getByRole("table", { name: "Search results" });
  await expect(table.locator("caption")).toContainText("4 results");
  // The two results farther than the cut, and only they, are marked as dropped.
  const dropped = table.getByRole("row").filter({ hasText: "dropped by the no-match cut" });
  await expect(dropped).toHaveCount(2);
  await expect(table.getByRole("row").nth(3)).toContainText("dropped by the no-match cut");
  await expect(table.getByRole("row").nth(4)).toContainText("dropped by the no-match cut");
  await expect(
    page.getByText(
      `The agent's search returns 2 of these 4: the no-match cut ${cut} drops results farther than it (lower distance is closer).`,
    ),
  ).toBeVisible();
  const chart = page.getByRole("img", { name: new RegExp(`the no-match cut ${escape(String(cut))} drops \\d+ of them`) });
  await expect(chart).toBeVisible();
  await expect(chart.getByText(`no-match cut ${cut}`, { exact: true })).toBeVisible();

  // The fourth result's document ranks within top_k, yet the cut drops it.
  const fourth = top[3].filename;
  await page.getByRole("combobox", { name: "Expected document (why did it miss?)" }).selectOption({ label: fourth });
  const diagnosis = page.getByRole("status").filter({ hasText: fourth });
  const sentence = new RegExp(
    `Missed: ${escape(fourth)} is ranked 4, but its distance (\\d\\.\\d{4}) is past the no-match cut ${escape(String(cut))}: the agent's search drops it at any top_k\\.`,
  );
  await expect(diagnosis).toContainText(sentence);
  expect(Number(sentence.exec((await diagnosis.textContent()) ?? "")![1])).toBeCloseTo(d4, 3);
  await expect(page.getByTestId("needed-k")).toHaveText("none: past the cut");

  // The agent's own search returns only the two within the cut.
  const searched = await page.request.post(`/api/agents/${agent.id}/documents/search`, { data: { query: QUERY, top_k: 4 } });
  expect(searched.status()).toBe(200);
  expect(((await searched.json()).results as { filename: string }[]).map((r) => r.filename)).toEqual([top[0].filename, top[1].filename]);
  await page.screenshot({ path: "e2e/screenshots/inspector-cut.png", fullPage: true });

  // An evaluation run with the cut counts the pair as a miss although it ranks 4th.
  const imported = await page.request.post(`/api/agents/${agent.id}/pairs`, { data: [{ query: QUERY, expected: fourth }] });
  expect(imported.status()).toBe(201);
  const run = await page.request.post(`/api/agents/${agent.id}/evals`, { data: { k: 4 } });
  expect(run.status()).toBe(201);
  await page.goto(`/agents/${agent.id}/eval`);
  await expect(page.getByRole("region", { name: /^Run #\d+$/ })).toContainText(`no-match cut ${cut}`);
  const pairRow = page.getByRole("table", { name: "Result of every pair at k = 4" }).getByRole("row", { name: new RegExp(escape(QUERY)) });
  await expect(pairRow.getByRole("cell").nth(2)).toHaveText("4");
  await expect(pairRow.getByText("Miss: past the cut", { exact: true })).toBeVisible();

  // Cleared, the cut drops nothing and the inspector says nothing of it.
  const cleared = await page.request.patch(`/api/agents/${agent.id}`, { data: { max_distance: null } });
  expect(cleared.status()).toBe(200);
  await page.goto(`/agents/${agent.id}/search?q=${encodeURIComponent(QUERY)}&k=4`);
  await expect(table.locator("caption")).toContainText("4 results");
  await expect(table.getByText("dropped by the no-match cut")).toHaveCount(0);
  await expect(page.getByText(/The agent's search returns/)).toHaveCount(0);
});
