import { ARTICLES, expect, test, uploadThroughApi } from "./fixtures";

// The Documents tab as a browser of a knowledge base: the list first, with what the agent's own
// calls retrieved of each document; the documents never retrieved, each with the logged question
// nearest to it, opened in the inspector with that document expected.

const MORE = {
  "gift-cards.md": "# Gift cards\n\nGift cards never expire and can be spent online or in any of our shops.\n",
  "warranty.md": "# Warranty\n\nEvery appliance has a two year warranty: a faulty one is repaired or replaced free of charge.\n",
};

test("lists each document's retrievals, the documents never retrieved with their nearest question, and opens one in the inspector", async ({
  page,
  agent,
}) => {
  const uploaded = await uploadThroughApi(page, agent.id, { ...ARTICLES, ...MORE });
  const id = (name: string) => uploaded.find((d) => d.filename === name)!.document_id;
  const ask = async (query: string, top_k: number, filter?: Record<string, unknown>) => {
    const res = await page.request.post(`/api/agents/${agent.id}/documents/search`, {
      data: { query, top_k, ...(filter ? { filter } : {}) },
    });
    expect(res.status()).toBe(200);
    return (await res.json()).results as { filename: string }[];
  };
  const shipping = await ask("when do orders ship", 1);
  const returns = await ask("how do I send an item back", 1);
  // Asked with a filter that leaves the warranty article out: nothing retrieves it.
  const warrantyQuestion = "is my broken appliance repaired under warranty";
  await ask(warrantyQuestion, 1, { filename: { $nin: ["warranty.md"] } });
  // The inspector's searches are not the agent's traffic.
  await page.request.post(`/api/agents/${agent.id}/inspect`, { data: { query: "gift cards expire", top_k: 5 } });
  expect(shipping[0].filename).toBe("shipping.md");
  expect(returns[0].filename).toBe("returns.txt");

  await page.goto(`/agents/${agent.id}`);
  // The list comes first: its heading before the upload panel's.
  const headings = await page.getByRole("heading", { level: 2 }).allTextContents();
  expect(headings.findIndex((h) => /^Documents \(\d+\)$/.test(h))).toBeLessThan(headings.findIndex((h) => /upload/i.test(h)));
  await expect(page.getByRole("region", { name: "Index recall" })).toHaveCount(0);
  await expect(page.getByRole("link", { name: "30 days" })).toHaveAttribute("aria-current", "page");

  const table = page.getByRole("table", { name: "Documents", exact: true });
  const row = (name: string) => table.getByRole("row").filter({ has: page.getByRole("link", { name, exact: true }) });
  const retrieved = await page.request.get(`/api/agents/${agent.id}/coverage`);
  const coverage = (await retrieved.json()) as {
    calls: number;
    documents: { filename: string; retrieved: number; ranks: { "1": number } }[];
  };
  expect(coverage.calls).toBe(3);
  for (const d of coverage.documents) {
    await expect(row(d.filename)).toContainText(d.retrieved === 0 ? "never" : `${d.retrieved} (${d.ranks["1"]} first)`);
  }
  await expect(row("warranty.md")).toContainText("never");
  await expect(row("gift-cards.md")).toContainText("never");

  // Sorted by retrievals, the most retrieved come first.
  await table.getByRole("button", { name: "Retrieved", exact: true }).click();
  await table.getByRole("button", { name: "Retrieved", exact: true }).click();
  const firstRow = table.getByRole("row").nth(1);
  await expect(firstRow).not.toContainText("never");

  const never = page.getByRole("region", { name: /^Never retrieved since / });
  await expect(never.getByRole("heading")).toHaveText(/\(2\)$/);
  const warrantyRow = never.getByRole("row").filter({ hasText: "warranty.md" });
  await expect(warrantyRow).toContainText(`“${warrantyQuestion}”`);
  await warrantyRow.getByRole("link", { name: /^Inspect/ }).click();
  await expect(page).toHaveURL(new RegExp(`/agents/${agent.id}/search\\?.*expected=${id("warranty.md")}`));
  await expect(page.getByLabel("Query")).toHaveValue(warrantyQuestion);

  // Another window: "all time" keeps the same counts here, and says so in the heading.
  await page.goto(`/agents/${agent.id}?since=all`);
  await expect(page.getByRole("link", { name: "all time" })).toHaveAttribute("aria-current", "page");
  await expect(page.getByRole("region", { name: "Never retrieved ever" })).toBeVisible();
});
