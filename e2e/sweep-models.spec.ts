import { FakeOpenAIServer, topicVector } from "../test/fake-openai";
import { AppInstance } from "./app-instance";
import { expect, test } from "./fixtures";

/**
 * The embedding model as one more column of the sweep: an app that embeds locally, with an
 * OpenAI-compatible server configured too (a fake one: the paid API is not reachable here).
 */

const PORT = Number(process.env.E2E_MODELS_PORT ?? 3141);
const ARTICLES = {
  "sla.txt": "Support SLA. Premium customers get a first response from the support team within 4 business hours.",
  "refunds.txt":
    "Refund policy. A full refund is available within 30 days of purchase. Refunds reach the original payment method in 5 to 10 days.",
  "password.txt": "Password reset. Use the forgot password link on the sign-in page; the reset email link works for one hour.",
  "invoices.txt": "Invoices are issued on the first day of each billing period and can be downloaded as PDF from the billing settings.",
};
// The fake model knows these synonyms; the last pair ranks second with it (refunds shares more of its topics).
const CSV = [
  "query,expected",
  "get my cash reimbursed,refunds.txt",
  "credential trouble,password.txt",
  "how quickly will someone answer,sla.txt",
  "a receipt copy,invoices.txt",
  "receipt for a refund,invoices.txt",
].join("\n");

let fake: FakeOpenAIServer;
let app: AppInstance;
test.beforeAll(async () => {
  test.setTimeout(180_000);
  fake = await new FakeOpenAIServer().start();
  fake.vectorOf = topicVector;
  app = new AppInstance(PORT, {
    OPENAI_BASE_URL: fake.url,
    OPENAI_API_KEY: "sk-e2e-models",
    OPENAI_EMBEDDING_MODEL: "test-model",
    OPENAI_EMBEDDING_DIMENSION: "8",
    // The stand-in's chat model: it changes the ask pipeline and writes generated questions, not the sweep.
    OPENAI_CHAT_MODEL: "test-chat",
  });
  await app.start(150_000);
});
test.afterAll(async () => {
  await app?.stop();
  app?.remove();
  await fake?.close();
});

test("a sweep measures the same chunk setting with the other embedding model, which can be compared but not applied", async ({ page }) => {
  test.setTimeout(180_000);
  const api = (path: string) => `${app.url}${path}`;
  const created = await page.request.post(api("/api/agents"), { data: { name: "Models", tools: ["document_search"] } });
  const agentId = (await created.json()).id as number;
  const form = new FormData();
  for (const [name, text] of Object.entries(ARTICLES)) form.append("files", new Blob([text]), name);
  expect((await page.request.fetch(api(`/api/agents/${agentId}/documents`), { method: "POST", multipart: form })).status()).toBe(201);
  const imported = await page.request.post(api(`/api/agents/${agentId}/pairs`), { headers: { "content-type": "text/csv" }, data: CSV });
  expect((await imported.json()).accepted).toBe(5);

  await page.goto(api(`/agents/${agentId}/eval`));
  const sweep = page.getByRole("region", { name: "Chunk-settings sweep" });
  await sweep.getByRole("group", { name: "Chunk size (characters)" }).getByRole("checkbox", { name: "400", exact: true }).uncheck();
  await sweep
    .getByRole("group", { name: "Strategy" })
    .getByRole("checkbox", { name: /^fixed:/ })
    .uncheck();
  await expect(sweep.getByText("1 setting", { exact: true })).toBeVisible();
  await sweep.getByRole("checkbox", { name: /^Also embed each setting with test-model/ }).check();
  await expect(sweep.getByText("2 settings", { exact: true })).toBeVisible();
  await sweep.getByLabel("Compare recall at k").fill("1");
  await sweep.getByRole("button", { name: "Run sweep" }).click();

  const table = sweep.getByRole("table", { name: "Sweep results" });
  await expect(table.getByRole("row")).toHaveCount(3, { timeout: 60_000 });
  const other = table.getByRole("row", { name: /^800 \/ 100 boundary with test-model/ });
  await expect(other.getByText("other model: measured only")).toBeVisible({ timeout: 60_000 });
  await expect(other.getByRole("cell").nth(2)).toHaveText(/^80%/);
  await expect(other.getByRole("cell").nth(5)).toHaveText("0.900");
  await expect(other.getByRole("button", { name: /^Apply/ })).toHaveCount(0);
  // The app's own model keeps its row, current and appliable.
  const own = table.getByRole("row", { name: /^800 \/ 100 boundary current/ });
  await expect(own.getByRole("button", { name: "Apply 800 / 100 boundary" })).toBeVisible();
  await page.screenshot({ path: "e2e/screenshots/sweep-models.png", fullPage: true });
  expect(fake.requests.some((r) => r.path === "/v1/embeddings" && r.body.model === "test-model")).toBe(true);
});

// What the stand-in writes for a document: "What does <file> say about <first five words of a sentence>?", one per sentence.
const WRITTEN = {
  "refunds.txt": ["What does refunds.txt say about Refund policy?", "What does refunds.txt say about A full refund is available?"],
  "sla.txt": ["What does sla.txt say about Support SLA?", "What does sla.txt say about Premium customers get a first?"],
};

test("with a chat model, generated questions are the model's, named after it, and an accepted one is a labeled pair", async ({ page }) => {
  const api = (path: string) => `${app.url}${path}`;
  const created = await page.request.post(api("/api/agents"), { data: { name: "Generated by chat", tools: ["document_search"] } });
  const agentId = (await created.json()).id as number;
  const form = new FormData();
  for (const [name, text] of Object.entries(ARTICLES)) form.append("files", new Blob([text]), name);
  expect((await page.request.fetch(api(`/api/agents/${agentId}/documents`), { method: "POST", multipart: form })).status()).toBe(201);
  const asked = fake.requests.length;

  await page.goto(api(`/agents/${agentId}/eval/pairs`));
  const generate = page.getByRole("form", { name: "Generate questions" });
  await expect(generate).toContainText("The chat model test-chat writes questions from each document's first chunks.");
  await generate.getByRole("radio", { name: /^Chosen documents/ }).check();
  const chosen = generate.getByRole("group", { name: "Documents to generate questions for" });
  await chosen.getByRole("checkbox", { name: "refunds.txt" }).check();
  await chosen.getByRole("checkbox", { name: "sla.txt" }).check();
  await generate.getByLabel("Questions per document").fill("2");
  await generate.getByRole("button", { name: "Generate questions" }).click();
  await expect(generate.locator("#generate-status")).toHaveText("Proposed 4 questions by test-chat. Review them below.");

  // One structured-output call per chosen document, to the configured chat model.
  const calls = fake.requests.slice(asked).filter((r) => r.path === "/v1/chat/completions");
  expect(
    calls.map((r) => /^Document: (.*)$/m.exec((r.body.messages as { role: string; content: string }[])[1].content)?.[1]).sort(),
  ).toEqual(["refunds.txt", "sla.txt"]);
  for (const r of calls)
    expect(r.body).toMatchObject({ model: "test-chat", response_format: { type: "json_schema", json_schema: { name: "questions" } } });

  const proposed = page.getByRole("region", { name: /^Proposed questions/ });
  await expect(proposed.getByRole("heading", { name: "Proposed questions (4)" })).toBeVisible();
  const list = proposed.getByRole("table", { name: "Proposed questions, not counted in runs until accepted" });
  await expect(list.getByRole("textbox", { name: "Question" })).toHaveCount(4);
  for (const [file, questions] of Object.entries(WRITTEN)) {
    for (const q of questions) await expect(list.getByRole("combobox", { name: `Document expected to answer “${q}”` })).toHaveValue(file);
  }
  await expect(page.getByRole("heading", { name: "0 labeled pairs" })).toBeVisible();

  const [accepted] = WRITTEN["refunds.txt"];
  await list
    .getByRole("form", { name: `Accept “${accepted}”` })
    .getByRole("button", { name: "Accept" })
    .click();
  await expect(proposed.getByRole("heading", { name: "Proposed questions (3)" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "1 labeled pair", exact: true })).toBeVisible();
  await expect(page.getByRole("table", { name: "Labeled pairs" }).getByRole("row").nth(1)).toContainText(
    new RegExp(`${accepted.replace("?", "\\?")}.*refunds\\.txt.*generated`),
  );
  await expect(page.getByRole("link", { name: /^Labeled pairs \(\d+\)$/ })).toHaveText("Labeled pairs (1)");
  const stored = (await (await page.request.get(api(`/api/agents/${agentId}/pairs`))).json()).pairs as {
    query: string;
    source: string;
    status: string;
  }[];
  expect(stored.find((p) => p.query === accepted)).toMatchObject({ source: "generated", status: "accepted" });
  expect(stored.filter((p) => p.status === "proposed")).toHaveLength(3);

  expect((await page.request.delete(api(`/api/agents/${agentId}`))).ok()).toBe(true);
});
