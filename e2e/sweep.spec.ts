import type { Page } from "@playwright/test";
import { chunkText, type ChunkStrategy } from "../lib/core/chunking";
import { expect, test, uploadThroughApi } from "./fixtures";

const ARTICLES: Record<string, string> = {
  "travel-policy.md": [
    "# Travel policy",
    "Employees book business travel through the company travel portal at least fourteen days before departure. Bookings made later need written approval from a department head, and the reason has to be noted on the trip request.",
    "Economy class is the standard for every flight under six hours. Flights longer than six hours may be booked in premium economy; business class is reserved for flights over ten hours and needs approval from the finance director.",
    "Hotels are reimbursed up to 180 euros per night in capital cities and 120 euros per night elsewhere. Breakfast is included in the hotel allowance, while dinners are covered by the daily meal allowance of 45 euros.",
    "Expense reports with receipts are due within thirty days of returning from a trip. Reports submitted after sixty days are not reimbursed, and lost receipts must be replaced by a signed declaration.",
  ].join("\n\n"),
  "security-handbook.md": [
    "# Security handbook",
    "Every laptop is encrypted with full-disk encryption before it is handed out, and the recovery key is stored with the IT department. A lost or stolen laptop must be reported to the service desk within one hour.",
    "Passwords are at least sixteen characters long and are kept in the company password manager. Two-factor authentication with a hardware key is required for email, source code hosting and the payroll system.",
    "Visitors sign in at reception, wear a visitor badge at all times and are escorted by their host in the office areas. The server room is open only to the infrastructure team and every entry is logged.",
    "Suspected phishing emails are forwarded to the security team with the report button in the mail client. Nobody is ever asked for their password by email, and gift card requests from managers are always fraud.",
  ].join("\n\n"),
  "onboarding-guide.md": [
    "# Onboarding guide",
    "On the first day a new hire meets their buddy at nine o'clock at reception, receives a laptop and a badge, and joins the welcome breakfast with the other people starting that month.",
    "During the first week new hires complete the compliance training modules in the learning portal: data protection, code of conduct and information security. Each module takes about forty minutes.",
    "Every new hire gets a thirty, sixty and ninety day plan written together with their manager. The plan lists the people to meet, the systems to learn and one small project to ship in the first quarter.",
    "The probation period lasts six months. Halfway through it the manager holds a formal review, and at the end both sides confirm the contract or agree on an extension of at most three months.",
  ].join("\n\n"),
};

const PAIRS = [
  { query: "how many days ahead must I book a business trip", expected: "travel-policy.md" },
  { query: "hotel allowance per night in a capital city", expected: "travel-policy.md" },
  { query: "deadline for submitting expense reports and receipts", expected: "travel-policy.md" },
  { query: "what to do when my laptop is stolen", expected: "security-handbook.md" },
  { query: "minimum password length and hardware key", expected: "security-handbook.md" },
  { query: "where do I forward a phishing email", expected: "security-handbook.md" },
  { query: "who do I meet on my first day", expected: "onboarding-guide.md" },
  { query: "how long is the probation period", expected: "onboarding-guide.md" },
];

const STRATEGIES: ChunkStrategy[] = ["boundary", "fixed"];
// The server trims trailing whitespace from extracted text before chunking.
const chunksWith = (strategy: ChunkStrategy) =>
  Object.values(ARTICLES).reduce((n, text) => n + chunkText(text.trimEnd(), 400, 0, strategy).length, 0);

interface DocumentRow {
  filename: string;
  status: string;
  chunk_size: number;
  chunk_overlap: number;
  chunk_strategy: string;
  chunk_count: number;
}

async function readyDocuments(page: Page, agentId: number) {
  const res = await page.request.get(`/api/agents/${agentId}/documents`);
  expect(res.status()).toBe(200);
  const { documents } = (await res.json()) as { documents: DocumentRow[] };
  return documents.filter((d) => d.status === "ready").sort((a, b) => a.filename.localeCompare(b.filename));
}

test("sweeps two chunk settings side by side and applies one to every document", async ({ page, agent }) => {
  test.setTimeout(180_000);
  await uploadThroughApi(page, agent.id, ARTICLES);
  const imported = await page.request.post(`/api/agents/${agent.id}/pairs`, { data: PAIRS });
  expect(imported.status()).toBe(201);
  expect((await imported.json()).accepted).toBe(PAIRS.length);

  await page.goto(`/agents/${agent.id}/eval`);
  const sweep = page.getByRole("region", { name: "Chunk-settings sweep" });
  const run = sweep.getByRole("button", { name: "Run sweep" });
  await expect(sweep.getByText("4 settings", { exact: true })).toBeVisible();
  await expect(run).toBeEnabled();

  // An empty grid cannot be run.
  const strategies = sweep.getByRole("group", { name: "Strategy" });
  for (const s of STRATEGIES) await strategies.getByRole("checkbox", { name: new RegExp(`^${s}:`) }).uncheck();
  await expect(sweep.getByText(/^0 settings/)).toBeVisible();
  await expect(run).toBeDisabled();
  for (const s of STRATEGIES) await strategies.getByRole("checkbox", { name: new RegExp(`^${s}:`) }).check();

  await sweep.getByRole("group", { name: "Chunk size (characters)" }).getByRole("checkbox", { name: "800", exact: true }).uncheck();
  const overlaps = sweep.getByRole("group", { name: "Overlap (characters)" });
  await overlaps.getByRole("checkbox", { name: "100", exact: true }).uncheck();
  await overlaps.getByRole("checkbox", { name: "0", exact: true }).check();
  await expect(sweep.getByText("2 settings", { exact: true })).toBeVisible();
  await run.click();

  const table = sweep.getByRole("table", { name: "Sweep results" });
  const row = (strategy: ChunkStrategy) => table.getByRole("row", { name: new RegExp(`^400 / 0 ${strategy}`) });
  // Both rows finished: each has its Apply button and the form can run again.
  await expect(table.getByRole("button", { name: /^Apply 400 \/ 0 / })).toHaveCount(2, { timeout: 60_000 });
  await expect(sweep.getByRole("button", { name: "Run sweep" })).toBeEnabled({ timeout: 60_000 });
  await expect(table.getByRole("row")).toHaveCount(3);
  for (const strategy of STRATEGIES) {
    const cells = row(strategy).getByRole("cell");
    await expect(cells.nth(1)).toHaveText(String(chunksWith(strategy)));
    await expect(cells.nth(2)).toHaveText(/^\d+(\.\d)?%/);
    await expect(cells.nth(6)).toHaveText(/^[01]\.\d{3}$/);
  }
  await expect(table.getByRole("columnheader", { name: "Recall@3" })).toBeVisible();
  // The documents were uploaded with 800 / 100 boundary, which is not in this grid.
  await expect(table.getByText("current", { exact: true })).toHaveCount(0);
  await expect(sweep.getByRole("img", { name: /Recall@3 by chunk setting/ })).toBeVisible();
  await page.screenshot({ path: "e2e/screenshots/sweep.png", fullPage: true });

  // The sweep left the live index as it was.
  for (const d of await readyDocuments(page, agent.id)) {
    expect([d.chunk_size, d.chunk_overlap, d.chunk_strategy]).toEqual([800, 100, "boundary"]);
  }

  let question = "";
  page.once("dialog", (d) => {
    question = d.message();
    void d.accept();
  });
  await table.getByRole("button", { name: "Apply 400 / 0 fixed" }).click();
  await expect(sweep.getByText("Applied: every document is indexed with 400 / 0 fixed.")).toBeVisible({ timeout: 60_000 });
  expect(question).toBe("Re-index all 3 documents of this agent with 400 / 0 fixed?");
  await expect(row("fixed").getByText("current", { exact: true })).toBeVisible();
  await expect(row("boundary").getByText("current", { exact: true })).toHaveCount(0);

  const docs = await readyDocuments(page, agent.id);
  expect(docs.map((d) => d.filename)).toEqual(Object.keys(ARTICLES).sort());
  for (const d of docs) {
    expect([d.chunk_size, d.chunk_overlap, d.chunk_strategy]).toEqual([400, 0, "fixed"]);
    expect(d.chunk_count).toBe(chunkText(ARTICLES[d.filename].trimEnd(), 400, 0, "fixed").length);
  }

  // The finished sweep is still there when the page is opened again.
  await page.goto(`/agents/${agent.id}/eval`);
  await expect(table.getByRole("row")).toHaveCount(3);
  for (const strategy of STRATEGIES) await expect(row(strategy).getByRole("cell").nth(2)).toHaveText(/^\d+(\.\d)?%/);
  await expect(row("fixed").getByText("current", { exact: true })).toBeVisible();
});

test("a sweep cannot start without labeled pairs", async ({ page, agent }) => {
  await uploadThroughApi(page, agent.id, { "travel-policy.md": ARTICLES["travel-policy.md"] });
  await page.goto(`/agents/${agent.id}/eval`);
  const sweep = page.getByRole("region", { name: "Chunk-settings sweep" });
  await expect(sweep.getByText("Add labeled pairs first.")).toBeVisible();
  await expect(sweep.getByRole("button", { name: "Run sweep" })).toBeDisabled();
  await expect(sweep.getByRole("table", { name: "Sweep results" })).toHaveCount(0);
});
