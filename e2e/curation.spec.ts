import { expect, test, uploadThroughApi } from "./fixtures";

// Three paragraphs, one chunk each at 130 characters without overlap.
const ROUTER = [
  "Router reset. Hold the reset button on the back of the router for ten seconds until the lights blink.",
  "Guest network. Turn on the guest network in the admin page under Wireless and share its password.",
  "Footer. Copyright Example Networks. All rights reserved. Follow us for news and offers every week.",
].join("\n\n");

const search = async (page: import("@playwright/test").Page, agentId: number, query: string) => {
  const res = await page.request.post(`/api/agents/${agentId}/documents/search`, { data: { query, top_k: 10 } });
  expect(res.status()).toBe(200);
  return (await res.json()).results as { chunk_text: string }[];
};

test("an editor edits a chunk in place, switches one off, attaches questions and undoes the last change", async ({ page, agent }) => {
  const [doc] = await uploadThroughApi(page, agent.id, { "router.md": ROUTER }, { chunk_size: "130", chunk_overlap: "0" });
  expect(doc.chunk_count).toBe(3);
  await page.goto(`/agents/${agent.id}/documents/${doc.document_id}`);
  const chunks = page.getByRole("listitem").filter({ has: page.getByRole("link", { name: /^Inspect chunk/ }) });
  await expect(chunks).toHaveCount(3);

  // Edit chunk 0 in place: the page opens the new version, the chunk marked edited.
  await page.getByRole("button", { name: "Edit chunk 0" }).click();
  const edited = "Router reset. Press the reset button with a pin for fifteen seconds.";
  await page.getByRole("textbox", { name: "Text of chunk 0" }).fill(edited);
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Chunk changed." })).toBeVisible();
  await expect(page).not.toHaveURL(new RegExp(`/documents/${doc.document_id}$`));
  await expect(chunks.nth(0)).toContainText("edited");
  await expect(chunks.nth(0)).toContainText("with a pin for fifteen seconds");
  expect((await search(page, agent.id, "press the reset button with a pin"))[0].chunk_text).toBe(edited);

  // Switch the footer off: struck through, never retrieved.
  await page.getByRole("button", { name: "Switch off chunk 2" }).click();
  await expect(chunks.nth(2)).toContainText("switched off");
  await expect(chunks.nth(2).getByText(/^Footer\./)).toHaveCSS("text-decoration-line", "line-through");
  expect((await search(page, agent.id, "copyright all rights reserved")).some((r) => r.chunk_text.startsWith("Footer"))).toBe(false);

  // Attach questions to the guest network chunk.
  await page.getByRole("button", { name: "Questions of chunk 1" }).click();
  await page.getByRole("textbox", { name: "Questions chunk 1 answers, one per line" }).fill("wifi for visitors\nhotspot for houseguests");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByRole("list", { name: "Questions chunk 1 answers" }).getByRole("listitem")).toHaveText([
    "wifi for visitors",
    "hotspot for houseguests",
  ]);

  // Undo the last change: the questions are gone, the switch-off and the edit stay.
  await page.getByRole("button", { name: "Undo last change" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Last change undone." })).toBeVisible();
  await expect(page.getByRole("list", { name: "Questions chunk 1 answers" })).toHaveCount(0);
  await expect(chunks.nth(2)).toContainText("switched off");
  await expect(chunks.nth(0)).toContainText("edited");

  // Every change is in the document's history.
  await page.getByText(/^Changes to this document/).click();
  await expect(page.getByText(/· undo ·/)).toBeVisible();
});

test("re-indexing a curated document previews what the curation keeps, then keeps it", async ({ page, agent }) => {
  const [doc] = await uploadThroughApi(page, agent.id, { "router.md": ROUTER }, { chunk_size: "130", chunk_overlap: "0" });
  await page.goto(`/agents/${agent.id}/documents/${doc.document_id}`);
  await page.getByRole("button", { name: "Switch off chunk 2" }).click();
  await expect(page.getByText("switched off", { exact: false }).first()).toBeVisible();
  await page.getByRole("spinbutton", { name: "Chunk size" }).fill("140");
  await page.getByRole("button", { name: "Preview what the curation keeps" }).click();
  const preview = page.getByRole("region", { name: "What the re-index keeps of the curation" });
  await expect(preview).toContainText("Kept: 1");
  await expect(preview).toContainText("stays switched off");
  await page.getByRole("button", { name: "Re-index with these settings" }).click();
  await expect(page.getByText(/of 140 with 0 overlap/)).toBeVisible();
  await expect(page.getByRole("listitem").filter({ hasText: /^Chunk 2/ })).toContainText("switched off");
});
