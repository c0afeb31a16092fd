import { ARTICLES, expect, test, uploadThroughApi } from "./fixtures";

// One chunk each, so every question's closest chunk is a whole short article.
const MORE = {
  "warehouse.md": "Our warehouse in Leeds packs orders every weekday morning; couriers collect them in the afternoon.",
  "tracking.txt": "Tracking. Each parcel gets a tracking number by email as soon as the courier scans it.",
  "gift-cards.md": "Gift cards never expire and can be spent on anything in the shop, including sale items.",
  "passwords.txt": "To reset your password, open Account settings and choose Send reset link.",
};

// Four questions the articles answer and three off-topic ones nothing should answer.
const CSV = [
  "query,expected,note,answerable",
  "when do orders ship,shipping.md,,true",
  "how long do I have to send an item back,returns.txt,,true",
  "do gift cards expire,gift-cards.md,,true",
  "how do I reset my password,passwords.txt,,true",
  "recipe for banana bread,,off-topic,false",
  "who won the football world cup,,off-topic,false",
  "best hiking trails in Norway,,off-topic,false",
].join("\n");

const FORM_QUESTION = "what is the capital of Peru";
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

test("unanswerable pairs calibrate a no-match cut that, once applied, refuses them", async ({ page, agent }) => {
  await uploadThroughApi(page, agent.id, { ...ARTICLES, ...MORE });
  const imported = await page.request.post(`/api/agents/${agent.id}/pairs`, { headers: { "content-type": "text/csv" }, data: CSV });
  expect(imported.status()).toBe(201);
  expect(await imported.json()).toMatchObject({ accepted: 7, rejected: [] });

  // One more through the form: the box disables the document select and the pair is listed as unanswerable.
  await page.goto(`/agents/${agent.id}/eval/pairs`);
  await expect(page.getByText("unanswerable pairs calibrate the no-match cut")).toBeVisible();
  const form = page.getByRole("form", { name: "Add a pair" });
  const box = form.getByRole("checkbox", { name: "No document should answer this (unanswerable)" });
  await form.getByRole("textbox", { name: "Query" }).fill(FORM_QUESTION);
  await box.check();
  await expect(form.getByRole("combobox", { name: "Expected document" })).toBeDisabled();
  await form.getByRole("button", { name: "Add pair" }).click();
  await expect(page.getByText(`Added "${FORM_QUESTION}" as unanswerable.`)).toBeVisible();
  await expect(box).not.toBeChecked();
  await expect(form.getByRole("combobox", { name: "Expected document" })).toBeEnabled();
  await expect(page.getByRole("heading", { name: "8 labeled pairs" })).toBeVisible();
  const pairs = page.getByRole("table", { name: "Labeled pairs" });
  await expect(pairs.getByRole("row", { name: new RegExp(FORM_QUESTION) })).toContainText("— unanswerable");
  await expect(pairs.getByRole("row").filter({ hasText: "unanswerable" })).toHaveCount(4);
  // Editing keeps it unanswerable: the box comes checked and the select disabled.
  await pairs.getByRole("button", { name: `Edit “${FORM_QUESTION}”` }).click();
  const editBox = pairs.getByRole("checkbox", { name: "No document should answer this (unanswerable)" });
  await expect(editBox).toBeChecked();
  await expect(pairs.getByRole("combobox", { name: "Expected document" })).toBeDisabled();
  await pairs.getByRole("textbox", { name: "Note" }).fill("added by hand");
  await pairs.getByRole("button", { name: "Save" }).click();
  await expect(pairs.getByRole("row", { name: new RegExp(FORM_QUESTION) })).toContainText(/— unanswerable\s*added by hand/);

  await page.getByRole("link", { name: "Dashboard" }).click();
  await page.getByLabel("k (hit when ranked at most k)").fill("3");
  await page.getByRole("button", { name: "Run evaluation" }).click();
  await expect(page).toHaveURL(/\?run=\d+&k=3$/);
  const firstRun = Number(new URL(page.url()).searchParams.get("run"));
  const headline = page.getByRole("region", { name: `Run #${firstRun}` });
  await expect(headline).toContainText("4 unanswerable pairs: no cut was set, so none was refused.");
  const results = page.getByRole("table", { name: "Result of every pair at k = 3" });
  const unanswerableRows = results.getByRole("row").filter({ hasText: "— (unanswerable)" });
  await expect(unanswerableRows).toHaveCount(4);
  await expect(unanswerableRows.getByText("Answered", { exact: true })).toHaveCount(4);

  const panel = page.getByRole("region", { name: "No-match cut" });
  await expect(panel.getByRole("img", { name: /^No-match cut calibration at k = 3/ })).toBeVisible();
  const apply = panel.getByRole("button", { name: /^Apply cut \d/ });
  await expect(apply).toBeVisible();
  const cut = Number(((await apply.textContent()) ?? "").replace("Apply cut ", ""));
  expect(cut).toBeGreaterThan(0);
  await expect(panel.getByRole("row", { name: new RegExp(`^Recommended ${escape(String(cut))} `) })).toBeVisible();
  await expect(panel.getByRole("row", { name: /^Current \(none\) / })).toBeVisible();
  // The panel shows what the API recommends for the same run and k.
  const calibration = await page.request.get(`/api/agents/${agent.id}/evals/${firstRun}/calibration?k=3`);
  expect((await calibration.json()).recommended.cut).toBe(cut);
  await page.screenshot({ path: "e2e/screenshots/calibration.png", fullPage: true });

  await apply.click();
  await expect(
    panel.getByText(`Applied: the agent's search now drops results farther than ${cut}. Run an evaluation to see its effect.`),
  ).toBeVisible();
  await expect(panel.getByRole("row", { name: new RegExp(`^Current ${escape(String(cut))} `) })).toBeVisible();
  const saved = await page.request.get(`/api/agents/${agent.id}`);
  expect((await saved.json()).max_distance).toBe(cut);

  // Run again: the new run searches with the cut, and refuses unanswerable questions past it.
  await page.getByRole("button", { name: "Run evaluation" }).click();
  await expect(page).not.toHaveURL(new RegExp(`\\?run=${firstRun}&`));
  await expect(page.getByRole("region", { name: /^Run #\d+$/ })).toContainText(
    new RegExp(`4 unanswerable pairs: [1-4] refused by the cut ${escape(String(cut))}\\.`),
  );
  const refused = results
    .getByRole("row")
    .filter({ hasText: "— (unanswerable)" })
    .filter({ has: page.getByText("Refused", { exact: true }) });
  expect(await refused.count()).toBeGreaterThanOrEqual(1);
  const question = ((await refused.first().getByRole("cell").first().textContent()) ?? "").trim();
  expect([FORM_QUESTION, ...CSV.split("\n").map((l) => l.split(",")[0])]).toContain(question);

  // The agent's own search returns nothing for that question.
  const searched = await page.request.post(`/api/agents/${agent.id}/documents/search`, { data: { query: question } });
  expect(searched.status()).toBe(200);
  expect((await searched.json()).results).toEqual([]);

  // Its ask is refused, and the inspector's Ask panel says at which step.
  const asked = await page.request.post(`/api/agents/${agent.id}/ask`, { data: { question } });
  expect(await asked.json()).toMatchObject({ refused: true, reason: "no_match", answer: null });
  await page.goto(`/agents/${agent.id}/search?q=${encodeURIComponent(question)}&k=3`);
  await page.getByRole("button", { name: "Ask", exact: true }).click();
  await expect(page.getByText(/Refused at retrieval \(no_match\)/)).toBeVisible();
});
